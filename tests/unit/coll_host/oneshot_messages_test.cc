// Oneshot AllGather and Broadcast (oneshot_messages.cc): point-to-point
// messages of the CommLink, ranks as threads. Exact results on 1..8 ranks
// and across hosts, every size from 0 to 64 Ki + 3 elements, in and out of
// place, every root; more ranks than one batch of steps (kMaxStepsInFlight);
// the choice's refusals (any protocol but simple, more than one channel);
// and a oneshot call between ring calls on the same communicator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll/host/oneshot_messages.h"
#include "coll/host/step_window.h"
#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kSizes[] = {0, 1, 7, 1023, 4099, 65536 + 3};
constexpr Func kFuncs[] = {Func::kAllGather, Func::kBroadcast};

std::vector<CollCase> Cases(int n) {
  std::vector<CollCase> cases;
  int k = 0;
  for (Func func : kFuncs) {
    for (uint64_t count : kSizes) {
      for (bool in_place : {false, true}) {
        const auto type = static_cast<DataType>(k % kNumDataTypes);
        cases.push_back(
            CollCase{func, Algo::kOneShot, Protocol::kSimple, type, RedOp::kSum, count, in_place, 1, k % n});
        ++k;
      }
    }
  }
  return cases;
}

class OneShotMessages : public ::testing::TestWithParam<int> {};

TEST_P(OneShotMessages, ExactForEverySizeAndRoot) {
  const int n = GetParam();
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  EXPECT_EQ(RunCases(world, Cases(n)), "");
  EXPECT_EQ(SegmentsLeft(world.unique()), 0) << "messages make no connectors";
}

INSTANTIATE_TEST_SUITE_P(Ranks, OneShotMessages, ::testing::Values(1, 2, 3, 4, 5, 8));

TEST(OneShotMessagesAcrossHosts, ExactForEverySizeAndRoot) {
  for (const std::vector<int>& hosts :
       {std::vector<int>{0, 1}, std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 1, 2}}) {
    ThreadWorld world(hosts, NewUnique());
    EXPECT_EQ(RunCases(world, Cases(static_cast<int>(hosts.size()))), "") << hosts.size() << " ranks";
  }
}

// More peers than one batch: the batches of every rank line up.
TEST(OneShotMessagesBatches, MoreRanksThanStepsInFlight) {
  const int n = kMaxStepsInFlight + 3;
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  const std::vector<CollCase> cases = {
      CollCase{Func::kAllGather, Algo::kOneShot, Protocol::kSimple, DataType::kInt32, RedOp::kSum, 5, false, 1, 0},
      CollCase{Func::kAllGather, Algo::kOneShot, Protocol::kSimple, DataType::kFloat64, RedOp::kSum, 3, true, 1, 0},
      CollCase{Func::kBroadcast, Algo::kOneShot, Protocol::kSimple, DataType::kUint8, RedOp::kSum, 9, false, 1, n - 1},
      CollCase{Func::kBroadcast, Algo::kOneShot, Protocol::kSimple, DataType::kFloat32, RedOp::kSum, 7, true, 1, 17},
  };
  EXPECT_EQ(RunCases(world, cases), "");
}

// Oneshot between ring calls of the same functions: neither takes the
// other's messages or steps.
TEST(OneShotMessagesMixed, AlternatesWithTheRing) {
  ThreadWorld world({0, 0, 0}, NewUnique());
  std::vector<CollCase> cases;
  for (int i = 0; i < 6; ++i) {
    const Algo algo = i % 2 == 0 ? Algo::kOneShot : Algo::kRing;
    const Func func = i % 3 == 0 ? Func::kBroadcast : Func::kAllGather;
    cases.push_back(CollCase{func, algo, Protocol::kSimple, DataType::kInt64, RedOp::kSum, 4099, i % 4 == 1, 1, i % 3});
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

// Forced with another protocol or more channels: InvalidUsage on every rank,
// saying why, and the communicator still runs the simple one.
TEST(OneShotMessagesErrors, OnlySimpleWithOneChannel) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> buf(8, static_cast<float>(rank + 1));
                       CollCall call{Func::kBroadcast, buf.data(), buf.data(), 8, DataType::kFloat32, RedOp::kSum, 1};
                       for (const TuneChoice& bad : {TuneChoice{Algo::kOneShot, Protocol::kLL, 1, 0},
                                                     TuneChoice{Algo::kOneShot, Protocol::kLL128, 1, 0},
                                                     TuneChoice{Algo::kOneShot, Protocol::kSimple, 2, 0}}) {
                         const Status s = coll.Run(call, &bad);
                         if (s.code() != grInvalidUsage) return "want invalid usage, got " + s.ToString();
                         if (s.message().find("simple and one channel only") == std::string::npos) {
                           return "the error does not say why: " + s.message();
                         }
                       }
                       const TuneChoice simple{Algo::kOneShot, Protocol::kSimple, 1, 0};
                       if (Status s = coll.Run(call, &simple); !s.ok()) return s.ToString();
                       return buf[7] == 2 ? "" : "oneshot broadcast gave " + std::to_string(buf[7]);
                     }),
            "");
}

// Counts that differ between the ranks: the receiver's message is another
// size than its count says, which is the user's error (InvalidUsage), not
// the library's.
TEST(OneShotMessagesErrors, CountsThatDifferBetweenRanksAreInvalidUsage) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> buf(8, 1);
                       const uint64_t count = rank == 0 ? 8 : 4;
                       CollCall call{Func::kBroadcast,   buf.data(),  buf.data(), count,
                                     DataType::kFloat32, RedOp::kSum, 0};
                       const TuneChoice forced{Algo::kOneShot, Protocol::kSimple, 1, 0};
                       const Status s = coll.Run(call, &forced);
                       if (rank == 0) return s.ok() ? "" : s.ToString();
                       return s.code() == grInvalidUsage ? "" : "want invalid usage, got " + s.ToString();
                     }),
            "");
}

TEST(OneShotMessagesErrors, ReduceAndReduceScatterHaveNoOneShot) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> in(8, 1), out(8);
                       for (Func func : {Func::kReduce, Func::kReduceScatter}) {
                         CollCall call{func, in.data(), out.data(), 4, DataType::kFloat32, RedOp::kSum, 0};
                         const TuneChoice forced{Algo::kOneShot, Protocol::kSimple, 1, 0};
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
