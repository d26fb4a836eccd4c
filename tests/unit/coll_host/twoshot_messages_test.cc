// Twoshot AllReduce (twoshot_messages.cc): point-to-point messages of the
// CommLink, ranks as threads. The block split; exact results for every type
// and op on 1..8 ranks and across hosts, sizes from 0 to 64 Ki + 3 elements
// (counts below the rank count leave blocks empty), in and out of place; more
// ranks than one window of steps; twoshot between ring calls; the choice's
// refusals and counts that differ between ranks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll/host/step_window.h"
#include "coll/host/twoshot_messages.h"
#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kSizes[] = {0, 1, 2, 3, 7, 1023, 4099, 65536 + 3};
constexpr RedOp kOps[] = {RedOp::kSum, RedOp::kProd, RedOp::kMin, RedOp::kMax, RedOp::kAvg};

CollCase TwoShot(DataType type, RedOp op, uint64_t count, bool in_place) {
  return CollCase{Func::kAllReduce, Algo::kTwoShot, Protocol::kSimple, type, op, count, in_place, 1, 0};
}

// Every size in and out of place; types and ops in turn, so each type meets
// several ops and sizes.
std::vector<CollCase> Cases() {
  std::vector<CollCase> cases;
  int k = 0;
  for (uint64_t count : kSizes) {
    for (bool in_place : {false, true}) {
      for (int j = 0; j < 3; ++j, ++k) {
        cases.push_back(TwoShot(static_cast<DataType>(k % kNumDataTypes), kOps[k % 5], count, in_place));
      }
    }
  }
  return cases;
}

TEST(TwoShotBlock, SplitsEvenlyWithTheRemainderFirst) {
  for (uint64_t total : {0ULL, 1ULL, 5ULL, 7ULL, 64ULL, 1000003ULL}) {
    for (int n : {1, 2, 3, 4, 7, 17}) {
      uint64_t next = 0;
      for (int b = 0; b < n; ++b) {
        const Block block = TwoShotBlock(total, n, b);
        EXPECT_EQ(block.start, next) << total << " over " << n << ", block " << b;
        EXPECT_EQ(block.count, total / n + (static_cast<uint64_t>(b) < total % n ? 1 : 0));
        next = block.start + block.count;
      }
      EXPECT_EQ(next, total) << total << " over " << n;
    }
  }
}

TEST(TwoShotBlock, NoOverflowNearTheTop) {
  const uint64_t total = ~0ULL - 5;
  const Block last = TwoShotBlock(total, 7, 6);
  EXPECT_EQ(last.start + last.count, total);
}

class TwoShotMessages : public ::testing::TestWithParam<int> {};

TEST_P(TwoShotMessages, ExactForEveryTypeOpAndSize) {
  const int n = GetParam();
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  EXPECT_EQ(RunCases(world, Cases()), "");
  EXPECT_EQ(SegmentsLeft(world.unique()), 0) << "messages make no connectors";
}

INSTANTIATE_TEST_SUITE_P(Ranks, TwoShotMessages, ::testing::Values(1, 2, 3, 4, 5, 8));

TEST(TwoShotMessagesAcrossHosts, ExactForEveryTypeOpAndSize) {
  for (const std::vector<int>& hosts :
       {std::vector<int>{0, 1}, std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 1, 2}}) {
    ThreadWorld world(hosts, NewUnique());
    EXPECT_EQ(RunCases(world, Cases()), "") << hosts.size() << " ranks";
  }
}

// More peers than one window: every rank's windows line up, and counts both
// below and above the rank count.
TEST(TwoShotMessagesWindow, MoreRanksThanStepsInFlight) {
  const int n = kMaxStepsInFlight + 3;
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  const std::vector<CollCase> cases = {
      TwoShot(DataType::kInt32, RedOp::kSum, 5, false),
      TwoShot(DataType::kFloat64, RedOp::kAvg, 3 * n + 2, true),
      TwoShot(DataType::kUint8, RedOp::kMax, 1, false),
      TwoShot(DataType::kFloat32, RedOp::kMin, 1000, true),
  };
  EXPECT_EQ(RunCases(world, cases), "");
}

// Twoshot between ring and oneshot calls: none takes another's messages or steps.
TEST(TwoShotMessagesMixed, AlternatesWithTheOtherAlgorithms) {
  ThreadWorld world({0, 0, 0}, NewUnique());
  std::vector<CollCase> cases;
  for (int i = 0; i < 9; ++i) {
    CollCase c = TwoShot(DataType::kInt64, RedOp::kSum, 4099, i % 4 == 1);
    if (i % 3 == 1) c.algo = Algo::kRing;
    if (i % 3 == 2) c.func = Func::kAllGather, c.algo = Algo::kOneShot;
    cases.push_back(c);
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

// Forced with another protocol or more channels: InvalidUsage saying why,
// and the communicator still runs the simple one.
TEST(TwoShotMessagesErrors, OnlySimpleWithOneChannel) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> buf(8, static_cast<float>(rank + 1));
                       CollCall call{Func::kAllReduce, buf.data(), buf.data(), 8, DataType::kFloat32, RedOp::kSum, 0};
                       for (const TuneChoice& bad : {TuneChoice{Algo::kTwoShot, Protocol::kLL, 1, 0},
                                                     TuneChoice{Algo::kTwoShot, Protocol::kLL128, 1, 0},
                                                     TuneChoice{Algo::kTwoShot, Protocol::kSimple, 2, 0}}) {
                         const Status s = coll.Run(call, &bad);
                         if (s.code() != grInvalidUsage) return "want invalid usage, got " + s.ToString();
                         if (s.message().find("forced twoshot allreduce") == std::string::npos ||
                             s.message().find("simple and one channel only") == std::string::npos) {
                           return "the error does not say why: " + s.message();
                         }
                       }
                       const TuneChoice simple{Algo::kTwoShot, Protocol::kSimple, 1, 0};
                       if (Status s = coll.Run(call, &simple); !s.ok()) return s.ToString();
                       return buf[0] == 3 && buf[7] == 3 ? "" : "twoshot allreduce gave " + std::to_string(buf[7]);
                     }),
            "");
}

// Counts that differ between the ranks: a block of another size than this
// rank's count says, which is the user's error (InvalidUsage).
TEST(TwoShotMessagesErrors, CountsThatDifferBetweenRanksAreInvalidUsage) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> in(8, 1), out(8);
                       const uint64_t count = rank == 0 ? 8 : 4;
                       CollCall call{Func::kAllReduce,   in.data(),   out.data(), count,
                                     DataType::kFloat32, RedOp::kSum, 0};
                       const TuneChoice forced{Algo::kTwoShot, Protocol::kSimple, 1, 0};
                       const Status s = coll.Run(call, &forced);
                       return s.code() == grInvalidUsage ? "" : "want invalid usage, got " + s.ToString();
                     }),
            "");
}

TEST(TwoShotMessagesErrors, OnlyAllReduceHasTwoShot) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> in(8, 1), out(16);
                       for (Func func : {Func::kReduce, Func::kReduceScatter, Func::kAllGather, Func::kBroadcast}) {
                         CollCall call{func, in.data(), out.data(), 4, DataType::kFloat32, RedOp::kSum, 0};
                         const TuneChoice forced{Algo::kTwoShot, Protocol::kSimple, 1, 0};
                         const Status s = coll.Run(call, &forced);
                         if (s.code() != grInvalidUsage || s.message().find("does not exist") == std::string::npos) {
                           return std::string(FuncName(func)) + ": want invalid usage, got " + s.ToString();
                         }
                       }
                       return "";
                     }),
            "");
}

}  // namespace
}  // namespace gpurun::coll
