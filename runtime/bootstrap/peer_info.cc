// PeerInfo encoding and exchange (see peer_info.h).
#include "runtime/bootstrap/peer_info.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <set>

#include "runtime/base/param_table.h"

namespace gpurun {
namespace {

// Fixed little header of int32 fields (the last: how many CPU ids follow),
// then the CPU ids (int32 each), then the host name bytes.
constexpr size_t kIntFields = 7;

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
  for (int32_t v : {info.rank, info.local_rank, info.local_size, info.node_id, info.pid,
                    static_cast<int32_t>(info.host_overridden), static_cast<int32_t>(info.cpus.size())}) {
    PutInt(out, v);
  }
  for (int cpu : info.cpus) PutInt(out, cpu);
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
  const int32_t ncpus = GetInt(blob, 6);
  if (ncpus < 0 || static_cast<size_t>(ncpus) > (blob.size() / sizeof(int32_t)) - kIntFields) {
    return InternalError("peer info of " + std::to_string(blob.size()) + " bytes claims " + std::to_string(ncpus) +
                         " CPU ids");
  }
  for (int32_t i = 0; i < ncpus; ++i) info.cpus.push_back(GetInt(blob, kIntFields + static_cast<size_t>(i)));
  const auto host = blob.subspan((kIntFields + static_cast<size_t>(ncpus)) * sizeof(int32_t));
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
  return peers;
}

}  // namespace gpurun
