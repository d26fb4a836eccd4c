// Adapter from UCX result codes (ucs_status_t) to Status. Internal to the UCX
// wire: nothing outside p2p/ucx includes UCX headers.
#ifndef GPURUN_P2P_UCX_UCX_STATUS_H_
#define GPURUN_P2P_UCX_UCX_STATUS_H_

#include <ucs/type/status.h>

#include <string_view>

#include "runtime/base/status.h"

namespace gpurun::p2p {

// OK for UCS_OK (and UCS_INPROGRESS); otherwise
// "<what>: <ucs_status_string> (UCS status N)" with a code by kind: lost,
// unreachable or rejected peers → grRemoteError; timeouts → grTimeout; bad
// parameters → grInvalidArgument; unsupported → grUnsupported; out of memory
// or resources, I/O and device errors → grSystemError; anything else (a
// truncated or cancelled operation, a UCX bug) → grInternalError.
Status UcsToStatus(ucs_status_t status, std::string_view what);

// Whether `status` says the remote side is gone (the endpoint cannot be used).
bool IsPeerFailure(ucs_status_t status);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_STATUS_H_
