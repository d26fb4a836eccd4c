// OpenNetToPeers (net_open.h).
#include "coll/host/net_open.h"

#include <algorithm>
#include <vector>

namespace gpurun::coll {

StatusOr<std::unique_ptr<p2p::UcxNet>> OpenNetToPeers(CommLink& link, uint64_t eager_bytes) {
  auto net = p2p::UcxNet::Open(eager_bytes);
  std::vector<std::byte> mine;
  if (net.ok()) mine = (*net)->Address();
  const int n = link.size();
  const uint64_t length = mine.size();
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  GR_RETURN_IF_ERROR(link.AllGather(&length, sizeof(length), lengths.data()));
  const uint64_t widest = *std::max_element(lengths.begin(), lengths.end());
  mine.resize(widest);
  std::vector<std::byte> all(widest * static_cast<uint64_t>(n));
  GR_RETURN_IF_ERROR(link.AllGather(mine.data(), widest, all.data()));
  if (!net.ok()) return net.status();
  for (int r = 0; r < n; ++r) {
    if (r == link.rank()) continue;
    const auto* begin = all.data() + widest * static_cast<uint64_t>(r);
    std::vector<std::byte> address(begin, begin + lengths[static_cast<size_t>(r)]);
    GR_RETURN_IF_ERROR((*net)->Connect(r, address, link.DescribePeer(r)));
  }
  return net;
}

}  // namespace gpurun::coll
