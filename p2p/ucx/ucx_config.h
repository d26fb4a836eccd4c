// UCP configuration gpurun applies on top of what UCX reads from UCX_*
// variables. Internal to p2p/ucx.
#ifndef GPURUN_P2P_UCX_UCX_CONFIG_H_
#define GPURUN_P2P_UCX_UCX_CONFIG_H_

#include <ucp/api/ucp.h>

#include <cstdint>

#include "runtime/base/status.h"

namespace gpurun::p2p {

// Messages of up to `eager_bytes` go eagerly (RNDV_THRESH = eager_bytes + 1)
// unless UCX_RNDV_THRESH is set in the environment, which wins. Over TCP a
// rendezvous costs a round trip (RTS, RTR, then the data) that eager skips.
Status SetEagerBound(ucp_config_t* config, uint64_t eager_bytes, const char* who);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_CONFIG_H_
