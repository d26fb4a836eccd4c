// What every rank publishes about itself at grInit and learns of its peers
// (the bootstrap layer owns it so that p2p and topo can use it too),
// exchanged with one bootstrap all-gather. Later layers add their endpoint
// data (shm names, UCX worker addresses, GPU bus ids) in their own exchanges.
#ifndef GPURUN_RUNTIME_PEER_INFO_H_
#define GPURUN_RUNTIME_PEER_INFO_H_

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"

namespace gpurun {

struct PeerInfo {
  int rank = 0;
  int local_rank = 0;
  int local_size = 1;
  int node_id = 0;
  int pid = 0;
  std::string host;
  // The host came from GPURUN_HOST_ID (a virtual node), not from the launcher.
  bool host_overridden = false;
  // The CPUs the process may run on at grInit (sched_getaffinity), ascending;
  // empty when unknown, and for ranks on other hosts after ExchangePeerInfo.
  // How many ranks share a core (p2p/core_sharing.h).
  std::vector<int> cpus{};
};

// This process's CPU affinity, ascending (empty if the kernel refuses).
std::vector<int> AffinityCpus();

// This process's entry, from the bootstrap identity; GPURUN_HOST_ID, when set,
// replaces the host.
PeerInfo LocalPeerInfo(const RankIdentity& id);

std::vector<std::byte> EncodePeerInfo(const PeerInfo& info);
StatusOr<PeerInfo> DecodePeerInfo(std::span<const std::byte> blob);

// All-gathers every rank's PeerInfo and checks the table is consistent
// (entry r claims rank r; local ranks of each node are 0..local_size-1).
// When any rank overrode its host, nodes are regrouped by host identity
// (RegroupByHost), so one machine can act as several nodes.
StatusOr<std::vector<PeerInfo>> ExchangePeerInfo(Bootstrap& bootstrap);

// Recomputes node_id (nodes numbered by their lowest rank), local_rank (rank
// order within the node) and local_size from the host strings.
void RegroupByHost(std::vector<PeerInfo>& peers);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_PEER_INFO_H_
