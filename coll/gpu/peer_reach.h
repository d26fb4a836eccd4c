// Facts about two GPUs of one host that the GPU path's set-up needs: a GPU's
// PCI bus id (how ranks name their GPU to each other) and whether this
// rank's GPU can reach another by CUDA peer access (peer_memory.h decides the
// path from it).
#ifndef GPURUN_COLL_GPU_PEER_REACH_H_
#define GPURUN_COLL_GPU_PEER_REACH_H_

#include <string>

#include "runtime/base/status.h"

namespace gpurun::coll {

// The PCI bus id of CUDA device `device` ("0000:18:00.0").
StatusOr<std::string> BusIdOf(int device);

// Whether GPU `device` can load and store the memory of the GPU with PCI bus
// id `peer_bus_id` through CUDA IPC: the same GPU, or peer access.
StatusOr<bool> PeerAccess(int device, const char* peer_bus_id);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_PEER_REACH_H_
