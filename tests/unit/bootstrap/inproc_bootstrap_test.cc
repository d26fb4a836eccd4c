// InprocBootstrap: multi-rank runs with one thread per rank.
#include "runtime/bootstrap/inproc_bootstrap.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "runtime/base/params.h"

namespace gpurun {
namespace {

using RankFn = std::function<void(Bootstrap&, int rank)>;

// Runs `fn` on one thread per rank and joins them.
void RunRanks(InprocGroup& group, const RankFn& fn) {
  std::vector<std::unique_ptr<Bootstrap>> ranks = group.TakeAll();
  ASSERT_EQ(static_cast<int>(ranks.size()), group.size());
  std::vector<std::thread> threads;
  threads.reserve(ranks.size());
  for (int r = 0; r < group.size(); ++r) threads.emplace_back([&, r] { fn(*ranks[r], r); });
  for (std::thread& t : threads) t.join();
}

InprocGroup MakeGroup(int size, InprocOptions options = {}) {
  if (!options.timeout_s) options.timeout_s = 60;  // a broken test fails instead of hanging
  return std::move(InprocGroup::Create(size, options)).value();
}

// Rank r's blob in round k: (r*7 + k*3) % 13 bytes (so some are empty), each a function of (r, k, i).
std::vector<std::byte> Blob(int rank, int round) {
  std::vector<std::byte> blob((rank * 7 + round * 3) % 13);
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<std::byte>(rank * 31 + round * 17 + i);
  return blob;
}

class InprocBootstrapTest : public ::testing::TestWithParam<int> {
 protected:
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

TEST_P(InprocBootstrapTest, IdentitiesOnOneNode) {
  const int n = GetParam();
  InprocGroup group = MakeGroup(n);
  std::string job_id;
  RunRanks(group, [&](Bootstrap& boot, int r) {
    const RankIdentity& id = boot.identity();
    EXPECT_EQ(id.rank, r);
    EXPECT_EQ(id.size, n);
    EXPECT_EQ(id.local_rank, r);
    EXPECT_EQ(id.local_size, n);
    EXPECT_EQ(id.node_id, 0);
    EXPECT_EQ(id.num_nodes, 1);
    EXPECT_FALSE(id.host.empty());
    EXPECT_EQ(id.job_id, group.IdentityOf(0).job_id);
    EXPECT_STREQ(boot.name(), "inproc");
  });
}

TEST_P(InprocBootstrapTest, AllGatherRoundsWithVaryingSizes) {
  const int n = GetParam();
  InprocGroup group = MakeGroup(n);
  constexpr int kRounds = 6;
  RunRanks(group, [&](Bootstrap& boot, int r) {
    for (int k = 0; k < kRounds; ++k) {
      auto all = boot.AllGather(Blob(r, k));
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      ASSERT_EQ(static_cast<int>(all->size()), n);
      for (int peer = 0; peer < n; ++peer) EXPECT_EQ((*all)[peer], Blob(peer, k)) << "round " << k << " peer " << peer;
    }
    auto empty = boot.AllGather({});
    ASSERT_TRUE(empty.ok());
    for (const auto& blob : *empty) EXPECT_TRUE(blob.empty());
    EXPECT_TRUE(boot.Finalize().ok());
  });
}

TEST_P(InprocBootstrapTest, BarrierWaitsForEveryRank) {
  const int n = GetParam();
  InprocGroup group = MakeGroup(n);
  constexpr int kRounds = 8;
  std::vector<std::atomic<int>> arrived(kRounds);
  RunRanks(group, [&](Bootstrap& boot, int r) {
    for (int k = 0; k < kRounds; ++k) {
      if ((r + k) % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
      arrived[k]++;
      ASSERT_TRUE(boot.Barrier().ok());
      EXPECT_EQ(arrived[k].load(), n) << "rank " << r << " left barrier " << k << " early";
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Sizes, InprocBootstrapTest, ::testing::Range(1, 17));

TEST(InprocLayoutTest, FakeNodes) {
  InprocGroup group = MakeGroup(10, {.ranks_per_node = 4});
  const int expected_local_size[] = {4, 4, 2};
  for (int r = 0; r < 10; ++r) {
    const RankIdentity id = group.IdentityOf(r);
    EXPECT_EQ(id.num_nodes, 3);
    EXPECT_EQ(id.node_id, r / 4);
    EXPECT_EQ(id.local_rank, r % 4);
    EXPECT_EQ(id.local_size, expected_local_size[r / 4]);
    EXPECT_EQ(id.host, group.IdentityOf(id.node_id * 4).host) << "one host name per node";
  }
  EXPECT_NE(group.IdentityOf(0).host, group.IdentityOf(4).host);
  EXPECT_NE(group.IdentityOf(4).host, group.IdentityOf(8).host);
  auto boot = group.Take(5);
  ASSERT_TRUE(boot.ok());
  EXPECT_EQ((*boot)->identity().local_rank, 1);
}

TEST(InprocLayoutTest, BadArgumentsAndDoubleTake) {
  EXPECT_EQ(InprocGroup::Create(0).status().code(), grInvalidArgument);
  EXPECT_EQ(InprocGroup::Create(2, {.ranks_per_node = -1}).status().code(), grInvalidArgument);
  InprocGroup group = MakeGroup(2);
  EXPECT_EQ(group.Take(2).status().code(), grInvalidArgument);
  EXPECT_TRUE(group.Take(1).ok());
  EXPECT_EQ(group.Take(1).status().code(), grInvalidUsage);
  EXPECT_TRUE(group.TakeAll().empty());
  EXPECT_NE(MakeGroup(1).IdentityOf(0).job_id, group.IdentityOf(0).job_id);
}

TEST(InprocFailureTest, AbortWakesWaitersAndFailsLaterCalls) {
  InprocGroup group = MakeGroup(4);
  RunRanks(group, [&](Bootstrap& boot, int r) {
    if (r == 2) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      EXPECT_TRUE(boot.Abort(7, "disk on fire").ok());
      return;
    }
    const Status s = boot.AllGather(Blob(r, 0)).status();
    EXPECT_EQ(s.code(), grRemoteError) << s.ToString();
    EXPECT_NE(s.message().find("rank 2 aborted with code 7: disk on fire"), std::string::npos) << s.message();
    EXPECT_EQ(boot.Barrier().code(), grRemoteError) << "later calls fail too";
  });
  EXPECT_EQ(group.abort_code(), 7);
}

TEST(InprocFailureTest, TimeoutNamesTheMissingRanks) {
  InprocGroup group = MakeGroup(8, {.timeout_s = 0.2});
  RunRanks(group, [&](Bootstrap& boot, int r) {
    for (int k = 0; k < 2; ++k) ASSERT_TRUE(boot.AllGather(Blob(r, k)).ok());
    if (r == 2 || r == 5) return;  // stuck ranks
    const Status s = boot.AllGather(Blob(r, 2)).status();
    EXPECT_EQ(s.code(), grTimeout);
    EXPECT_NE(s.message().find("waiting for ranks 2, 5 of 8 in AllGather #3"), std::string::npos) << s.message();
  });
  EXPECT_FALSE(group.abort_code().has_value());
}

TEST(InprocFailureTest, TimeoutComesFromGpurunTimeout) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "150ms").ok());
  InprocGroup group = std::move(InprocGroup::Create(3)).value();
  const auto start = std::chrono::steady_clock::now();
  RunRanks(group, [&](Bootstrap& boot, int r) {
    if (r == 0) return;
    const Status s = boot.Barrier();
    EXPECT_EQ(s.code(), grTimeout);
    EXPECT_NE(s.message().find("waiting for rank 0 of 3 in Barrier #1"), std::string::npos) << s.message();
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ParamRegistry::Global().Reset();
}

TEST(InprocFailureTest, MismatchedCollectivesFailEveryone) {
  InprocGroup group = MakeGroup(2);
  RunRanks(group, [&](Bootstrap& boot, int r) {
    const Status s = r == 0 ? boot.Barrier() : boot.AllGather(Blob(r, 0)).status();
    EXPECT_EQ(s.code(), grInvalidUsage) << s.ToString();
    EXPECT_NE(s.message().find("same order"), std::string::npos) << s.message();
  });
}

TEST(InprocFailureTest, FinalizeIsABarrierAndEndsTheBootstrap) {
  InprocGroup group = MakeGroup(4);
  std::atomic<int> arrived{0};
  RunRanks(group, [&](Bootstrap& boot, int r) {
    if (r == 3) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    arrived++;
    ASSERT_TRUE(boot.Finalize().ok());
    EXPECT_EQ(arrived.load(), 4);
    EXPECT_EQ(boot.Barrier().code(), grInvalidUsage);
    EXPECT_EQ(boot.Finalize().code(), grInvalidUsage);
  });
}

TEST(InprocFailureTest, LargeBlobsAndMixedCollectives) {
  InprocGroup group = MakeGroup(5);
  RunRanks(group, [&](Bootstrap& boot, int r) {
    std::vector<std::byte> big(1 << 20, static_cast<std::byte>(r));
    for (int k = 0; k < 3; ++k) {
      ASSERT_TRUE(boot.Barrier().ok());
      auto all = boot.AllGather(big);
      ASSERT_TRUE(all.ok());
      for (int p = 0; p < 5; ++p) {
        ASSERT_EQ((*all)[p].size(), big.size());
        EXPECT_EQ((*all)[p].front(), static_cast<std::byte>(p));
        EXPECT_EQ((*all)[p].back(), static_cast<std::byte>(p));
      }
    }
  });
}

}  // namespace
}  // namespace gpurun
