// Ring hop NVLinks and GPU sharing (see ring_links.h).
#include "topo/ring_links.h"

#include <algorithm>
#include <map>

#include "topo/gpu_info.h"
#include "topo/nvlink_matrix.h"
#include "topo/pci_bus_id.h"
#include "topo/ring_hints.h"

namespace gpurun::topo {
namespace {

// The canonical spelling when the text parses, else the text.
std::string Canonical(const std::string& bus_id) {
  const std::optional<PciAddress> address = ParsePciBusId(bus_id);
  return address ? FormatPciBusId(*address) : bus_id;
}

}  // namespace

int NarrowestRingHop(const std::vector<std::string>& bus_id_per_rank, const std::vector<int>& order,
                     const NvLinksOf& links_of) {
  int narrowest = kNoGpuHop;
  const size_t n = order.size();
  for (size_t k = 0; k < n; ++k) {
    const std::string from = Canonical(bus_id_per_rank[static_cast<size_t>(order[k])]);
    const std::string to = Canonical(bus_id_per_rank[static_cast<size_t>(order[(k + 1) % n])]);
    if (from == to) continue;
    const std::vector<std::string> pair = {from, to};
    const std::vector<std::vector<int>> counts = CountNvLinks(pair, {links_of(from), links_of(to)});
    const int links = counts[0][1];
    if (links == kUnknown) return kUnknown;
    narrowest = std::min(narrowest, links);
  }
  return narrowest;
}

int NarrowestRingHopFromNvml(const std::vector<std::string>& bus_id_per_rank, const std::vector<int>& order) {
  if (MostRanksPerGpu(bus_id_per_rank) == static_cast<int>(bus_id_per_rank.size())) return kNoGpuHop;
  StatusOr<const NvmlLibrary*> nvml = NvmlLibrary::Shared();
  if (!nvml.ok()) return kUnknown;
  return NarrowestRingHop(bus_id_per_rank, order, [&](const std::string& bus_id) {
    StatusOr<std::vector<NvLinkEnd>> ends = (*nvml)->ActiveNvLinks(bus_id);
    return ends.ok() ? std::optional<std::vector<NvLinkEnd>>(std::move(*ends)) : std::nullopt;
  });
}

int MostRanksPerGpu(const std::vector<std::string>& bus_id_per_rank) {
  std::map<std::string, int> ranks;
  int most = 0;
  for (const std::string& id : bus_id_per_rank) most = std::max(most, ++ranks[Canonical(id)]);
  return most;
}

}  // namespace gpurun::topo
