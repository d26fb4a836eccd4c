// PeerInfo encoding and exchange (see peer_info.h).
#include "runtime/bootstrap/peer_info.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "runtime/base/param_table.h"

namespace gpurun {
namespace {

// Fixed little header of int32 fields (the last: how many CPU ranges
// follow), then the CPU ranges (first id, count: int32 each), then the host
// name bytes. Ranges keep an entry small: a rank bound to a core, or one
// that may run anywhere, is one range, whatever the machine's CPU count.
constexpr size_t kIntFields = 7;
// CPU ids at most (sched.h's cpu_set_t), so a corrupt entry cannot make a huge list.
constexpr int kMaxCpuId = CPU_SETSIZE;

// Ascending CPU ids as (first, count) ranges of consecutive ids.
std::vector<std::pair<int32_t, int32_t>> CpuRanges(const std::vector<int>& cpus) {
  std::vector<std::pair<int32_t, int32_t>> ranges;
  for (int cpu : cpus) {
    if (!ranges.empty() && ranges.back().first + ranges.back().second == cpu) {
      ++ranges.back().second;
    } else {
      ranges.emplace_back(cpu, 1);
    }
  }
  return ranges;
}

void PutInt(std::vector<std::byte>& out, int32_t v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof(v));
}

int32_t GetInt(std::span<const std::byte> blob, size_t index) {
  int32_t v = 0;
  std::memcpy(&v, blob.data() + index * sizeof(v), sizeof(v));
  return v;
}

Status CheckLocalRanks(const std::vector<PeerInfo>& peers) {
  std::map<int, std::set<int>> local_ranks;  // node → local ranks seen
  for (const PeerInfo& p : peers) {
    if (!local_ranks[p.node_id].insert(p.local_rank).second) {
      return InternalError("ranks on node " + std::to_string(p.node_id) + " share local rank " +
                           std::to_string(p.local_rank));
    }
  }
  for (const PeerInfo& p : peers) {
    const auto& seen = local_ranks[p.node_id];
    if (static_cast<int>(seen.size()) != p.local_size || *seen.rbegin() != p.local_size - 1) {
      return InternalError("rank " + std::to_string(p.rank) + " says node " + std::to_string(p.node_id) + " has " +
                           std::to_string(p.local_size) + " ranks, but " + std::to_string(seen.size()) +
                           " ranks claim that node");
    }
  }
  return OkStatus();
}

}  // namespace

std::vector<int> AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

PeerInfo LocalPeerInfo(const RankIdentity& id) {
  PeerInfo info{id.rank, id.local_rank, id.local_size, id.node_id, static_cast<int>(getpid()),
                id.host, false,         AffinityCpus()};
  const std::string& host_id = params::kHostId.Get();
  if (!host_id.empty()) {
    info.host = host_id;
    info.host_overridden = true;
  }
  return info;
}

void RegroupByHost(std::vector<PeerInfo>& peers) {
  std::map<std::string, int> node_of_host;  // host → node id, in order of first rank
  std::map<std::string, int> count;
  for (PeerInfo& p : peers) {
    auto [it, inserted] = node_of_host.emplace(p.host, static_cast<int>(node_of_host.size()));
    p.node_id = it->second;
    p.local_rank = count[p.host]++;
  }
  for (PeerInfo& p : peers) p.local_size = count[p.host];
}

std::vector<std::byte> EncodePeerInfo(const PeerInfo& info) {
  std::vector<std::byte> out;
  const auto ranges = CpuRanges(info.cpus);
  for (int32_t v : {info.rank, info.local_rank, info.local_size, info.node_id, info.pid,
                    static_cast<int32_t>(info.host_overridden), static_cast<int32_t>(ranges.size())}) {
    PutInt(out, v);
  }
  for (const auto& [first, count] : ranges) {
    PutInt(out, first);
    PutInt(out, count);
  }
  const auto* h = reinterpret_cast<const std::byte*>(info.host.data());
  out.insert(out.end(), h, h + info.host.size());
  return out;
}

StatusOr<PeerInfo> DecodePeerInfo(std::span<const std::byte> blob) {
  if (blob.size() < kIntFields * sizeof(int32_t)) {
    return InternalError("peer info of " + std::to_string(blob.size()) + " bytes is too short");
  }
  PeerInfo info{GetInt(blob, 0),     GetInt(blob, 1), GetInt(blob, 2), GetInt(blob, 3), GetInt(blob, 4), "",
                GetInt(blob, 5) != 0};
  const int32_t nranges = GetInt(blob, 6);
  if (nranges < 0 || static_cast<size_t>(nranges) > (blob.size() / sizeof(int32_t) - kIntFields) / 2) {
    return InternalError("peer info of " + std::to_string(blob.size()) + " bytes claims " + std::to_string(nranges) +
                         " CPU ranges");
  }
  for (int32_t i = 0; i < nranges; ++i) {
    const int32_t first = GetInt(blob, kIntFields + 2 * static_cast<size_t>(i));
    const int32_t count = GetInt(blob, kIntFields + 2 * static_cast<size_t>(i) + 1);
    const int32_t after = info.cpus.empty() ? 0 : info.cpus.back() + 1;
    if (first < after || count < 1 || first > kMaxCpuId || count > kMaxCpuId - first) {
      return InternalError("peer info has a bad CPU range (" + std::to_string(first) + ", " + std::to_string(count) +
                           ")");
    }
    for (int32_t c = first; c < first + count; ++c) info.cpus.push_back(c);
  }
  const auto host = blob.subspan((kIntFields + 2 * static_cast<size_t>(nranges)) * sizeof(int32_t));
  info.host.assign(reinterpret_cast<const char*>(host.data()), host.size());
  return info;
}

StatusOr<std::vector<PeerInfo>> ExchangePeerInfo(Bootstrap& bootstrap) {
  const RankIdentity& id = bootstrap.identity();
  GR_ASSIGN_OR_RETURN(auto blobs, bootstrap.AllGather(EncodePeerInfo(LocalPeerInfo(id))));
  if (static_cast<int>(blobs.size()) != id.size) {
    return InternalError("peer exchange returned " + std::to_string(blobs.size()) + " entries for " +
                         std::to_string(id.size) + " ranks");
  }
  std::vector<PeerInfo> peers;
  peers.reserve(blobs.size());
  for (size_t r = 0; r < blobs.size(); ++r) {
    GR_ASSIGN_OR_RETURN(PeerInfo p, DecodePeerInfo(blobs[r]));
    if (p.rank != static_cast<int>(r)) {
      return InternalError("peer exchange entry " + std::to_string(r) + " claims rank " + std::to_string(p.rank));
    }
    peers.push_back(std::move(p));
  }
  const bool any_override =
      std::any_of(peers.begin(), peers.end(), [](const PeerInfo& p) { return p.host_overridden; });
  if (any_override) RegroupByHost(peers);
  GR_RETURN_IF_ERROR(CheckLocalRanks(peers));
  // Only this host's affinities matter (p2p/core_sharing.h): a large job
  // keeps no CPU lists of other hosts' ranks.
  const int my_node = peers[static_cast<size_t>(id.rank)].node_id;
  for (PeerInfo& p : peers) {
    if (p.node_id != my_node) p.cpus = {};
  }
  return peers;
}

}  // namespace gpurun
