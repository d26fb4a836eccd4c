// GPU facts for the GPU path's set-up (peer_reach.h).
#include "coll/gpu/peer_reach.h"

#include <cuda_runtime.h>

#include "p2p/cuda_ipc/cuda_status.h"

namespace gpurun::coll {

StatusOr<std::string> BusIdOf(int device) {
  char id[32] = {};
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(id, sizeof(id), device));
  return std::string(id);
}

StatusOr<bool> PeerAccess(int device, const char* peer_bus_id) {
  int peer_device = -1;
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceGetByPCIBusId(&peer_device, peer_bus_id));
  if (peer_device == device) return true;
  int can = 0;
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can, device, peer_device));
  return can != 0;
}

}  // namespace gpurun::coll
