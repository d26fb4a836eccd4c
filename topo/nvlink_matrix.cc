// NVLink count matrix (see nvlink_matrix.h).
#include "topo/nvlink_matrix.h"

#include <algorithm>
#include <cassert>

#include "topo/gpu_info.h"

namespace gpurun::topo {
namespace {

int SwitchLinks(const std::vector<NvLinkEnd>& links) {
  return static_cast<int>(
      std::count_if(links.begin(), links.end(), [](const NvLinkEnd& l) { return l.kind == NvLinkPeerKind::kSwitch; }));
}

int DirectLinks(const std::vector<NvLinkEnd>& links, const std::string& peer_bus_id) {
  return static_cast<int>(std::count_if(links.begin(), links.end(), [&](const NvLinkEnd& l) {
    return l.kind != NvLinkPeerKind::kSwitch && l.remote_bus_id == peer_bus_id;
  }));
}

}  // namespace

std::vector<std::vector<int>> CountNvLinks(const std::vector<std::string>& gpu_bus_ids,
                                           const std::vector<std::optional<std::vector<NvLinkEnd>>>& links) {
  assert(links.size() == gpu_bus_ids.size());
  const size_t n = gpu_bus_ids.size();
  std::vector<std::vector<int>> counts(n, std::vector<int>(n, 0));
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (!links[i] || !links[j]) {
        counts[i][j] = kUnknown;
        continue;
      }
      counts[i][j] = DirectLinks(*links[i], gpu_bus_ids[j]) + std::min(SwitchLinks(*links[i]), SwitchLinks(*links[j]));
    }
  }
  return counts;
}

}  // namespace gpurun::topo
