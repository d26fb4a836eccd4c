// Ring channel and ring order hints (see ring_hints.h).
#include "topo/ring_hints.h"

#include <algorithm>
#include <optional>
#include <tuple>

#include "runtime/base/parse.h"
#include "topo/pci_bus_id.h"

namespace gpurun::topo {
namespace {

// The rows of ring_hints.h's table.
constexpr int kNvLinkFullRate = 18;    // links of the measured row
constexpr int kHostPathChannels = 32;  // no NVLink or host memory
constexpr int kMinGpuRingChannels = 8;

int RoundUp(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }

// The sort key of one rank: parsed ids first by address, then the rest by text.
struct RingKey {
  std::optional<PciAddress> address;
  std::string text;
  int rank;

  bool operator<(const RingKey& other) const {
    if (address.has_value() != other.address.has_value()) return address.has_value();
    if (address && *address != *other.address) return *address < *other.address;
    if (!address && text != other.text) return text < other.text;
    return rank < other.rank;
  }
};

}  // namespace

int GpuRingChannels(const GpuRingShape& shape) {
  int channels = kMaxGpuRingChannels;
  if (shape.host_path || shape.narrowest_nvlinks == 0) {
    channels = kHostPathChannels;
  } else if (shape.narrowest_nvlinks > 0 && shape.narrowest_nvlinks < kNvLinkFullRate) {
    channels = std::max(kHostPathChannels,
                        RoundUp(kMaxGpuRingChannels * shape.narrowest_nvlinks / kNvLinkFullRate, kMinGpuRingChannels));
  }
  channels /= std::max(shape.ranks_per_gpu, 1);
  channels = std::max(channels, kMinGpuRingChannels);
  if (shape.sm_count > 0) channels = std::min(channels, shape.sm_count);
  return std::clamp(channels, 1, kMaxGpuRingChannels);
}

std::vector<int> RingOrder(const std::vector<std::string>& bus_id_per_rank) {
  std::vector<RingKey> keys;
  keys.reserve(bus_id_per_rank.size());
  for (size_t r = 0; r < bus_id_per_rank.size(); ++r) {
    keys.push_back(RingKey{ParsePciBusId(bus_id_per_rank[r]), bus_id_per_rank[r], static_cast<int>(r)});
  }
  std::sort(keys.begin(), keys.end());
  std::vector<int> order;
  order.reserve(keys.size());
  for (const RingKey& key : keys) order.push_back(key.rank);
  const auto first = std::find(order.begin(), order.end(), 0);
  if (first != order.end()) std::rotate(order.begin(), first, order.end());
  return order;
}

std::vector<int> RingOrderAcrossHosts(const std::vector<int>& host_per_rank,
                                      const std::vector<std::string>& bus_id_per_rank) {
  std::vector<int> hosts;  // in the order of their lowest rank
  for (int h : host_per_rank) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  std::vector<int> order;
  for (int h : hosts) {
    std::vector<int> ranks;
    std::vector<std::string> ids;
    for (size_t r = 0; r < host_per_rank.size(); ++r) {
      if (host_per_rank[r] != h) continue;
      ranks.push_back(static_cast<int>(r));
      ids.push_back(bus_id_per_rank[r]);
    }
    for (int local : RingOrder(ids)) order.push_back(ranks[static_cast<size_t>(local)]);
  }
  return order;
}

StatusOr<std::vector<int>> RingOrderFor(const std::string& setting, const std::vector<int>& host_per_rank,
                                        const std::vector<std::string>& bus_id_per_rank) {
  const int n = static_cast<int>(bus_id_per_rank.size());
  if (setting.empty() || setting == "pci") return RingOrderAcrossHosts(host_per_rank, bus_id_per_rank);
  std::vector<int> order;
  if (setting == "rank") {
    for (int r = 0; r < n; ++r) order.push_back(r);
    return order;
  }
  const std::vector<std::string> items = SplitList(setting, ',');
  std::vector<bool> seen(items.size(), false);
  for (const std::string& item : items) {
    auto v = ParseInt(item);
    if (!v.ok() || *v < 0 || *v >= static_cast<int64_t>(items.size()) || seen[static_cast<size_t>(*v)]) {
      return InvalidArgument("GPURUN_GPU_RING=" + setting +
                             " is not pci, rank or a permutation of the ranks 0..N-1 (\"" + item + "\")");
    }
    seen[static_cast<size_t>(*v)] = true;
    order.push_back(static_cast<int>(*v));
  }
  if (static_cast<int>(order.size()) != n) return RingOrderAcrossHosts(host_per_rank, bus_id_per_rank);
  return order;
}

}  // namespace gpurun::topo
