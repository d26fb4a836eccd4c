// Where the ranks of a job run: which node each rank is on, its rank among the
// ranks of that node (local rank, also the PMIx node rank), and the per-node
// lists that PMIx wants (local peers, proc map). Pure: no I/O.
//
// Ranks are placed in blocks: with N ranks on K nodes, node k holds a
// contiguous range of ranks, and the first N % K nodes hold one rank more.
// Today gpurun runs one node (K = 1); `--nodes K` virtual nodes will use K > 1.
#ifndef GPURUN_RUNTIME_LAUNCHER_JOB_LAYOUT_H_
#define GPURUN_RUNTIME_LAUNCHER_JOB_LAYOUT_H_

#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::launcher {

struct RankPlace {
  int rank = 0;
  int node = 0;        // node index, 0..num_nodes-1
  int local_rank = 0;  // index among the ranks of its node (PMIx local and node rank)
  int local_size = 0;  // ranks on its node
};

struct NodePlace {
  std::string hostname;
  std::vector<int> ranks;  // ascending
};

class JobLayout {
 public:
  // N ranks in blocks over one node per hostname. InvalidArgument when
  // num_ranks < 1 or there are no hostnames. A node may hold no rank when
  // there are more nodes than ranks.
  static StatusOr<JobLayout> Block(int num_ranks, std::vector<std::string> hostnames);

  int num_ranks() const { return static_cast<int>(ranks_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const RankPlace& rank(int r) const { return ranks_[r]; }
  const NodePlace& node(int n) const { return nodes_[n]; }
  const std::string& hostname_of(int r) const { return nodes_[ranks_[r].node].hostname; }

  // "0,1,2,3": the ranks of node n (PMIX_LOCAL_PEERS).
  std::string LocalPeers(int n) const;
  // "host0,host1": the hostnames, in node order (input of PMIx_generate_regex).
  std::string NodeList() const;
  // "0,1;2,3": the ranks of each node, nodes separated by ';' (input of PMIx_generate_ppn).
  std::string ProcList() const;

 private:
  std::vector<RankPlace> ranks_;
  std::vector<NodePlace> nodes_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_JOB_LAYOUT_H_
