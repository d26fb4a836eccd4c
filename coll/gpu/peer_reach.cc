// Peer reachability of the GPU path (peer_reach.h).
#include "coll/gpu/peer_reach.h"

#include <cuda_runtime.h>

#include "p2p/cuda_ipc/cuda_status.h"

namespace gpurun::coll {

StatusOr<std::string> BusIdOf(int device) {
  char id[32] = {};
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceGetPCIBusId(id, sizeof(id), device));
  return std::string(id);
}

Status CheckPeerReach(CommLink& link, int peer, int device, const char* peer_bus_id, const char* what) {
  if (!link.SameHost(peer)) {
    return Unsupported(std::string(what) + " across hosts needs the NET path, which is not built yet: " +
                       link.DescribePeer(peer) + " is on another host");
  }
  int peer_device = -1;
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceGetByPCIBusId(&peer_device, peer_bus_id));
  if (peer_device == device) return OkStatus();
  int can = 0;
  GR_CUDA_RETURN_IF_ERROR(cudaDeviceCanAccessPeer(&can, device, peer_device));
  if (can != 0) return OkStatus();
  GR_ASSIGN_OR_RETURN(const std::string mine, BusIdOf(device));
  return Unsupported(std::string(what) + ": GPU " + mine + " cannot access GPU " + peer_bus_id + " of " +
                     link.DescribePeer(peer) + " as a peer, and the path through host memory is not built yet");
}

}  // namespace gpurun::coll
