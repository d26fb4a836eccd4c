// Block placement of ranks on nodes (see job_layout.h).
#include "runtime/launcher/job_layout.h"

namespace gpurun::launcher {
namespace {

std::string JoinRanks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

}  // namespace

StatusOr<JobLayout> JobLayout::Block(int num_ranks, std::vector<std::string> hostnames) {
  if (num_ranks < 1) return InvalidArgument("a job needs at least one rank, not " + std::to_string(num_ranks));
  if (hostnames.empty()) return InvalidArgument("a job needs at least one node");
  JobLayout layout;
  const int num_nodes = static_cast<int>(hostnames.size());
  const int base = num_ranks / num_nodes;
  const int extra = num_ranks % num_nodes;
  int next = 0;
  for (int n = 0; n < num_nodes; ++n) {
    NodePlace node{std::move(hostnames[n]), {}};
    const int count = base + (n < extra ? 1 : 0);
    for (int i = 0; i < count; ++i) {
      node.ranks.push_back(next);
      layout.ranks_.push_back(RankPlace{next, n, i, count});
      ++next;
    }
    layout.nodes_.push_back(std::move(node));
  }
  return layout;
}

std::string JobLayout::LocalPeers(int n) const { return JoinRanks(nodes_[n].ranks); }

std::string JobLayout::NodeList() const {
  std::string out;
  for (const NodePlace& node : nodes_) out += (out.empty() ? "" : ",") + node.hostname;
  return out;
}

std::string JobLayout::ProcList() const {
  std::string out;
  for (size_t n = 0; n < nodes_.size(); ++n) out += (n == 0 ? "" : ";") + JoinRanks(nodes_[n].ranks);
  return out;
}

}  // namespace gpurun::launcher
