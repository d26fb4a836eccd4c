// Engine::Create: the wires GPURUN_P2P_TRANSPORT and the peer table call for
// (transport_plan.h). The shm and ucx wires live in p2p/shm and p2p/ucx; a
// build without one of them (GPURUN_HAVE_SHM_WIRE / GPURUN_HAVE_UCX_WIRE unset
// by p2p/CMakeLists.txt) fails here with grUnsupported when a job needs it.
#include "p2p/engine.h"

#include "p2p/core_sharing.h"
#include "p2p/peer_monitor.h"
#include "p2p/transport_plan.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

#if GPURUN_HAVE_SHM_WIRE
#include "p2p/shm/shm_wire.h"
#endif
#if GPURUN_HAVE_UCX_WIRE
#include "p2p/ucx/ucx_wire.h"
#endif

namespace gpurun::p2p {
namespace {

StatusOr<std::unique_ptr<Wire>> CreateShmWire(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                              const std::vector<int>& reach) {
#if GPURUN_HAVE_SHM_WIRE
  GR_ASSIGN_OR_RETURN(std::unique_ptr<ShmWire> wire, ShmWire::Create(bootstrap, peers, reach));
  return std::unique_ptr<Wire>(std::move(wire));
#else
  (void)bootstrap, (void)peers, (void)reach;
  return Unsupported("this job needs the shared-memory wire, which this build does not have (p2p/shm)");
#endif
}

StatusOr<std::unique_ptr<Wire>> CreateUcxWire(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                              const std::vector<int>& reach) {
#if GPURUN_HAVE_UCX_WIRE
  GR_ASSIGN_OR_RETURN(std::unique_ptr<UcxWire> wire, UcxWire::Create(bootstrap, peers, reach));
  return std::unique_ptr<Wire>(std::move(wire));
#else
  (void)bootstrap, (void)peers, (void)reach;
  return Unsupported("this job needs the UCX wire, which this build does not have (p2p/ucx)");
#endif
}

// Checks that `wire` connected every rank of `reach`, and records its index.
Status Adopt(std::unique_ptr<Wire> wire, const std::vector<int>& reach, std::vector<std::unique_ptr<Wire>>& wires,
             std::vector<int>& wire_of_peer) {
  for (int peer : reach) {
    if (!wire->Reaches(peer)) {
      return InternalError(std::string(wire->name()) + " wire was created but does not reach rank " +
                           std::to_string(peer));
    }
    wire_of_peer[peer] = static_cast<int>(wires.size());
  }
  wires.push_back(std::move(wire));
  return OkStatus();
}

void LogPlan(const TransportPlan& plan, const std::vector<PeerInfo>& peers) {
  for (const PeerInfo& p : peers) {
    GR_LOG(Info, P2p) << "rank " << p.rank << " (node " << p.node_id << ", host " << p.host << ", pid " << p.pid
                      << "): " << WireKindName(plan.wire_of_peer[p.rank]) << " wire";
  }
}

}  // namespace

StatusOr<std::unique_ptr<Engine>> Engine::Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers) {
  const int rank = bootstrap.identity().rank;
  const int64_t choice = params::kP2pTransport.Get();
  GR_ASSIGN_OR_RETURN(TransportPlan plan, PlanTransports(choice, rank, peers));
  std::vector<std::unique_ptr<Wire>> wires;
  std::vector<int> wire_of_peer(peers.size(), -1);
  // Every rank creates the same wires in the same order: shm, then ucx.
  if (plan.create_shm) {
    GR_ASSIGN_OR_RETURN(std::unique_ptr<Wire> shm, CreateShmWire(bootstrap, peers, plan.shm_reach));
    GR_RETURN_IF_ERROR(Adopt(std::move(shm), plan.shm_reach, wires, wire_of_peer));
  }
  if (plan.create_ucx) {
    GR_ASSIGN_OR_RETURN(std::unique_ptr<Wire> ucx, CreateUcxWire(bootstrap, peers, plan.ucx_reach));
    GR_RETURN_IF_ERROR(Adopt(std::move(ucx), plan.ucx_reach, wires, wire_of_peer));
  }
  LogPlan(plan, peers);
  std::unique_ptr<PeerMonitor> monitor = PeerMonitor::Create(rank, peers);
  const int local_ranks = rank >= 0 && rank < static_cast<int>(peers.size()) ? peers[rank].local_size : 1;
  const size_t cores = AffinityCpus().size();  // what SharesCores weighs (0: unknown)
  const bool shared_cores = SharesCores(peers, rank);
  GR_LOG(Info, P2p) << "point-to-point engine: " << wires.size() << " wire(s); watching " << monitor->watched()
                    << " same-host peer process(es); " << local_ranks << " rank(s) on this host, this one on " << cores
                    << " core(s)" << (shared_cores ? ": short spins" : "");
  return std::unique_ptr<Engine>(
      new Engine(rank, std::move(wires), std::move(wire_of_peer), std::move(monitor), shared_cores));
}

}  // namespace gpurun::p2p
