// OpenNetToPeers: the UCX worker of a collective NET proxy (the host
// executor's, net_proxy.h, and the GPU path's, gpu_net_proxy.h) with an
// endpoint to every other rank of the link. Collective: all ranks
// all-gather their worker addresses; a rank whose UCX failed still takes
// part (publishing an empty address), so the others fail naming it instead
// of waiting.
#ifndef GPURUN_COLL_HOST_NET_OPEN_H_
#define GPURUN_COLL_HOST_NET_OPEN_H_

#include <cstdint>
#include <memory>

#include "coll/host/comm_link.h"
#include "p2p/ucx/ucx_net.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// `eager_bytes`: UcxNet::Open's.
StatusOr<std::unique_ptr<p2p::UcxNet>> OpenNetToPeers(CommLink& link, uint64_t eager_bytes);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_NET_OPEN_H_
