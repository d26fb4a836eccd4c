// Wire choice per peer (see transport_plan.h).
#include "p2p/transport_plan.h"

#include <set>

#include "runtime/base/param_table.h"

namespace gpurun::p2p {

const char* WireKindName(WireKind kind) {
  switch (kind) {
    case WireKind::kSelf: return "self";
    case WireKind::kShm: return "shm";
    case WireKind::kUcx: return "ucx";
  }
  return "?";
}

StatusOr<TransportPlan> PlanTransports(int64_t choice, int my_rank, const std::vector<PeerInfo>& peers) {
  const int size = static_cast<int>(peers.size());
  if (my_rank < 0 || my_rank >= size) {
    return InternalError("transport plan: rank " + std::to_string(my_rank) + " outside a table of " +
                         std::to_string(size) + " peers");
  }
  const PeerInfo& me = peers[my_rank];
  std::set<int> nodes;
  for (const PeerInfo& p : peers) nodes.insert(p.node_id);
  TransportPlan plan;
  plan.wire_of_peer.assign(size, WireKind::kSelf);
  const bool multi_rank = size > 1;
  switch (choice) {
    case params::kP2pAuto:
      plan.create_shm = multi_rank;
      plan.create_ucx = nodes.size() > 1;
      break;
    case params::kP2pShm:
      for (const PeerInfo& p : peers) {
        if (p.node_id == me.node_id) continue;
        return InvalidArgument("GPURUN_P2P_TRANSPORT=shm, but rank " + std::to_string(p.rank) + " is on node " +
                               std::to_string(p.node_id) + " (host " + p.host + "), not on this rank's node " +
                               std::to_string(me.node_id) + " (host " + me.host +
                               "); use auto or ucx for jobs that span nodes");
      }
      plan.create_shm = multi_rank;
      break;
    case params::kP2pUcx: plan.create_ucx = multi_rank; break;
    default: return InvalidArgument("GPURUN_P2P_TRANSPORT: unknown choice " + std::to_string(choice));
  }
  for (const PeerInfo& p : peers) {
    if (p.rank == my_rank) continue;
    const bool use_shm = choice == params::kP2pShm || (choice == params::kP2pAuto && p.node_id == me.node_id);
    plan.wire_of_peer[p.rank] = use_shm ? WireKind::kShm : WireKind::kUcx;
    (use_shm ? plan.shm_reach : plan.ucx_reach).push_back(p.rank);
  }
  return plan;
}

}  // namespace gpurun::p2p
