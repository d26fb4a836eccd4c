// Whether this rank's GPU can reach a peer rank's GPU for the GPU path: the
// peer must be on this host (the NET path is not built) and the two GPUs
// must be one GPU or peer-accessible (the path through host memory is not
// built); anything else is Unsupported naming both. Used by every CUDA IPC
// connection set-up (ring_connectors.h, p2p_connection.h).
#ifndef GPURUN_COLL_GPU_PEER_REACH_H_
#define GPURUN_COLL_GPU_PEER_REACH_H_

#include <string>

#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// The PCI bus id of CUDA device `device` ("0000:18:00.0").
StatusOr<std::string> BusIdOf(int device);

// OkStatus when `peer` (whose GPU has PCI bus id `peer_bus_id`) is reachable
// from GPU `device` of this rank; `what` names the set-up in errors.
Status CheckPeerReach(CommLink& link, int peer, int device, const char* peer_bus_id, const char* what);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_PEER_REACH_H_
