// Adapter from PMIx result codes (pmix_status_t) to Status. Internal to the
// bootstrap library: nothing outside it includes PMIx headers.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_PMIX_STATUS_H_
#define GPURUN_RUNTIME_BOOTSTRAP_PMIX_STATUS_H_

#include <pmix.h>

#include <string_view>

#include "runtime/base/status.h"

namespace gpurun {

// OK for PMIX_SUCCESS; otherwise "<what>: <PMIx_Error_string> (PMIx status N)"
// with a code by kind: timeout → grTimeout; unreachable server, lost
// connection, failed or aborted peers and jobs → grRemoteError; bad
// parameters → grInvalidArgument; not supported → grUnsupported; out of
// memory or resources → grSystemError; PMIx not initialised → grInvalidUsage;
// pack/unpack and type errors → grInternalError; anything else →
// grRemoteError (the server reported it).
Status PmixToStatus(pmix_status_t rc, std::string_view what);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_PMIX_STATUS_H_
