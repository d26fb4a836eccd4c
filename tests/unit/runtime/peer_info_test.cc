#include "runtime/bootstrap/peer_info.h"
#include "runtime/bootstrap/inproc_bootstrap.h"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include <algorithm>
#include <cstring>

namespace gpurun {
namespace {

TEST(PeerInfo, EncodeDecodeRoundTrip) {
  PeerInfo in{5, 1, 4, 2, 4242, "node-a.example"};
  StatusOr<PeerInfo> out = DecodePeerInfo(EncodePeerInfo(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->rank, 5);
  EXPECT_EQ(out->local_rank, 1);
  EXPECT_EQ(out->local_size, 4);
  EXPECT_EQ(out->node_id, 2);
  EXPECT_EQ(out->pid, 4242);
  EXPECT_EQ(out->host, "node-a.example");
  EXPECT_TRUE(out->cpus.empty());
}

TEST(PeerInfo, CpusRoundTripAndABadCountIsRefused) {
  PeerInfo in{3, 0, 2, 0, 77, "h", false, {0, 5, 63}};
  StatusOr<PeerInfo> out = DecodePeerInfo(EncodePeerInfo(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->cpus, (std::vector<int>{0, 5, 63}));
  EXPECT_EQ(out->host, "h");
  std::vector<std::byte> blob = EncodePeerInfo(in);
  const int32_t too_many = 1000;
  std::memcpy(blob.data() + 6 * sizeof(int32_t), &too_many, sizeof(too_many));
  EXPECT_EQ(DecodePeerInfo(blob).status().code(), grInternalError);
}

TEST(PeerInfo, CpusTravelAsRanges) {
  PeerInfo in{0, 0, 1, 0, 1, "h", false, {}};
  for (int c = 0; c < 256; ++c) in.cpus.push_back(c);
  const std::vector<std::byte> whole = EncodePeerInfo(in);
  EXPECT_EQ(whole.size(), (7 + 2) * sizeof(int32_t) + 1) << "one range for 256 CPUs";
  in.cpus = {0, 1, 2, 3, 8, 9, 63};
  StatusOr<PeerInfo> out = DecodePeerInfo(EncodePeerInfo(in));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->cpus, in.cpus);
  // A range that goes back, or an empty one, is refused.
  std::vector<std::byte> blob = EncodePeerInfo(in);  // ranges (0,4) (8,2) (63,1)
  const int32_t back = 2;
  std::memcpy(blob.data() + (7 + 2) * sizeof(int32_t), &back, sizeof(back));
  EXPECT_EQ(DecodePeerInfo(blob).status().code(), grInternalError);
  blob = EncodePeerInfo(in);
  const int32_t empty = 0;
  std::memcpy(blob.data() + (7 + 1) * sizeof(int32_t), &empty, sizeof(empty));
  EXPECT_EQ(DecodePeerInfo(blob).status().code(), grInternalError);
}

TEST(PeerInfo, LocalEntryCarriesThisProcessesAffinity) {
  const std::vector<int> cpus = AffinityCpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_TRUE(std::is_sorted(cpus.begin(), cpus.end()));
}

// After the exchange a rank keeps the affinity of its own host's ranks only
// (two fake nodes of two ranks, threads of this process).
TEST(PeerInfo, ExchangeKeepsOnlyThisHostsAffinities) {
  StatusOr<InprocGroup> group = InprocGroup::Create(4, {.ranks_per_node = 2, .timeout_s = 30});
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  std::vector<std::unique_ptr<Bootstrap>> boots = group->TakeAll();
  std::vector<StatusOr<std::vector<PeerInfo>>> tables(4, InternalError("not run"));
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) threads.emplace_back([&, r] { tables[r] = ExchangePeerInfo(*boots[r]); });
  for (std::thread& t : threads) t.join();
  const std::vector<int> mine = AffinityCpus();
  for (int r = 0; r < 4; ++r) {
    ASSERT_TRUE(tables[r].ok()) << tables[r].status().ToString();
    for (const PeerInfo& p : *tables[r]) {
      const bool same_node = p.rank / 2 == r / 2;
      EXPECT_EQ(p.cpus, same_node ? mine : std::vector<int>{}) << "rank " << r << " about rank " << p.rank;
    }
  }
}

TEST(PeerInfo, EmptyHostAndShortBlob) {
  PeerInfo in{0, 0, 1, 0, 1, ""};
  EXPECT_EQ(DecodePeerInfo(EncodePeerInfo(in))->host, "");
  std::vector<std::byte> blob = EncodePeerInfo(in);
  blob.resize(7);
  EXPECT_EQ(DecodePeerInfo(blob).status().code(), grInternalError);
}

}  // namespace
}  // namespace gpurun

namespace gpurun {
namespace {

TEST(PeerInfo, RegroupByHostNumbersNodesByLowestRank) {
  std::vector<PeerInfo> peers;
  for (const char* host : {"b", "b", "a", "a", "b"}) {
    PeerInfo p;
    p.rank = static_cast<int>(peers.size());
    p.host = host;
    peers.push_back(p);
  }
  RegroupByHost(peers);
  const int node[] = {0, 0, 1, 1, 0}, local[] = {0, 1, 0, 1, 2}, size[] = {3, 3, 2, 2, 3};
  for (int r = 0; r < 5; ++r) {
    EXPECT_EQ(peers[r].node_id, node[r]) << r;
    EXPECT_EQ(peers[r].local_rank, local[r]) << r;
    EXPECT_EQ(peers[r].local_size, size[r]) << r;
  }
}

TEST(PeerInfo, OverrideFlagTravels) {
  PeerInfo in{1, 0, 1, 0, 7, "vhost#1", true};
  EXPECT_TRUE(DecodePeerInfo(EncodePeerInfo(in))->host_overridden);
}

}  // namespace
}  // namespace gpurun
