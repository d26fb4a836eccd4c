// TransportPlan: which wires a rank creates and which wire reaches each peer,
// from GPURUN_P2P_TRANSPORT and the peer table. Pure (no I/O), so every rank
// computes the same plan from the same table and creates the same wires in
// the same order, as the collective wire factories require.
//   auto: shm for peers with this rank's node_id (the shm wire is created by
//         every rank whenever the job has more than one rank), ucx for peers
//         on other nodes (created by every rank iff the job spans > 1 node);
//   shm:  shm for every peer; an error naming a peer on another node;
//   ucx:  ucx for every peer (created whenever the job has more than one rank).
// This rank itself is always "self" (the engine loops its messages back).
#ifndef GPURUN_P2P_TRANSPORT_PLAN_H_
#define GPURUN_P2P_TRANSPORT_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

enum class WireKind { kSelf, kShm, kUcx };
const char* WireKindName(WireKind kind);

struct TransportPlan {
  bool create_shm = false;
  bool create_ucx = false;
  std::vector<int> shm_reach;          // world ranks the shm wire connects to
  std::vector<int> ucx_reach;          // world ranks the ucx wire connects to
  std::vector<WireKind> wire_of_peer;  // indexed by world rank
};

// `choice` is a params::P2pTransportChoice; `peers` is indexed by world rank.
StatusOr<TransportPlan> PlanTransports(int64_t choice, int my_rank, const std::vector<PeerInfo>& peers);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_TRANSPORT_PLAN_H_
