// SharesCores (core_sharing.h).
#include "p2p/core_sharing.h"

#include <algorithm>

namespace gpurun::p2p {
namespace {

// Whether two ascending CPU lists share a CPU; an empty list (unknown) overlaps everything.
bool Overlap(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.empty() || b.empty()) return true;
  auto i = a.begin();
  auto j = b.begin();
  while (i != a.end() && j != b.end()) {
    if (*i == *j) return true;
    if (*i < *j) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

}  // namespace

bool SharesCores(const std::vector<PeerInfo>& peers, int rank) {
  if (rank < 0 || rank >= static_cast<int>(peers.size())) return false;
  const PeerInfo& me = peers[static_cast<size_t>(rank)];
  const std::vector<int> mine = me.cpus.empty() ? AffinityCpus() : me.cpus;
  if (mine.empty()) return me.local_size > 1;  // nothing known: assume the worst
  const auto sharers = std::count_if(peers.begin(), peers.end(), [&](const PeerInfo& p) {
    return p.node_id == me.node_id && Overlap(p.rank == rank ? mine : p.cpus, mine);
  });
  return sharers > static_cast<long>(mine.size());
}

}  // namespace gpurun::p2p
