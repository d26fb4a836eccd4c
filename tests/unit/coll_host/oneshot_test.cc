// One-shot AllReduce (oneshot_allreduce.cc) end to end, ranks as threads:
// exact results on 1..8 ranks for the three protocols, every type and op,
// sizes 0 to 64 Ki + 3 elements, in and out of place; float sums of
// non-integer values that are bit-identical on every rank and equal to the
// rank-order fold ((x0 + x1) + x2) ...; the same across hosts, where the
// edges between hosts are NET connectors (real UCX between the threads), LL
// and Simple (LL128 forced there is InvalidUsage naming the reason); no
// segment left behind.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

constexpr Protocol kProtos[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
constexpr uint64_t kSizes[] = {0, 1, 7, 1023, 4099, 65536 + 3};

std::vector<int> OneHost(int n) { return std::vector<int>(static_cast<size_t>(n), 0); }

class OneShotMatrix : public ::testing::TestWithParam<int> {};

// Protocol x size x in/out of place, (type, op) and channels (1..3) rotating.
TEST_P(OneShotMatrix, ExactForEveryProtocolAndSize) {
  const int n = GetParam();
  ThreadWorld world(OneHost(n), NewUnique());
  std::vector<CollCase> cases;
  int k = 0;
  for (Protocol proto : kProtos) {
    for (uint64_t count : kSizes) {
      for (bool in_place : {false, true}) {
        const auto type = static_cast<DataType>(k % kNumDataTypes);
        const auto op = static_cast<RedOp>((k / 2) % kNumRedOps);
        cases.push_back(CollCase{Func::kAllReduce, Algo::kOneShot, proto, type, op, count, in_place, 1 + k % 3, 0});
        ++k;
      }
    }
  }
  EXPECT_EQ(RunCases(world, cases), "");
  EXPECT_EQ(SegmentsLeft(world.unique()), 0);
}

INSTANTIATE_TEST_SUITE_P(Ranks, OneShotMatrix, ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8));

class OneShotTypes : public ::testing::TestWithParam<int> {};

// Every type x op x protocol, in and out of place.
TEST_P(OneShotTypes, EveryTypeAndOp) {
  const int n = GetParam();
  ThreadWorld world(OneHost(n), NewUnique());
  std::vector<CollCase> cases;
  for (Protocol proto : kProtos) {
    for (int t = 0; t < kNumDataTypes; ++t) {
      for (int o = 0; o < kNumRedOps; ++o) {
        const bool in_place = (t + o) % 2 == 0;
        cases.push_back(CollCase{Func::kAllReduce, Algo::kOneShot, proto, static_cast<DataType>(t),
                                 static_cast<RedOp>(o), 1023, in_place, 1, 0});
      }
    }
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

INSTANTIATE_TEST_SUITE_P(Ranks, OneShotTypes, ::testing::Values(2, 3, 8));

// Non-integer inputs of mixed magnitude, so that the grouping of the sum
// changes the rounding: every rank must equal the rank-order fold, bit for
// bit, and so each other.
template <typename T>
T Input(int rank, uint64_t i) {
  const double magnitude = rank % 2 == 1 ? 1e7 : 1.0;
  return static_cast<T>(magnitude * (0.1 + 0.37 * rank + 0.013 * static_cast<double>(i % 1000)) *
                        (i % 3 == 0 ? -1 : 1));
}

template <typename T>
std::string CheckRankOrder(const std::vector<int>& hosts, Protocol proto, RedOp op, uint64_t count, bool in_place) {
  const int n = static_cast<int>(hosts.size());
  ThreadWorld world(hosts, NewUnique());
  std::vector<std::vector<T>> outs(static_cast<size_t>(n));
  const DataType type = sizeof(T) == 4 ? DataType::kFloat32 : DataType::kFloat64;
  std::string error = RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
    std::vector<T> in(count), out(count, T(-7));
    for (uint64_t i = 0; i < count; ++i) in[i] = Input<T>(rank, i);
    if (in_place) out = in;
    CollCall call{Func::kAllReduce, in_place ? out.data() : in.data(), out.data(), count, type, op, 0};
    const TuneChoice forced{Algo::kOneShot, proto, 1, 0};
    if (Status s = coll.Run(call, &forced); !s.ok()) return s.ToString();
    outs[static_cast<size_t>(rank)] = out;
    return "";
  });
  if (!error.empty()) return error;
  for (uint64_t i = 0; i < count; ++i) {
    T want = Input<T>(0, i);
    for (int r = 1; r < n; ++r) want = want + Input<T>(r, i);
    if (op == RedOp::kAvg) want = want / static_cast<T>(n);
    for (int r = 0; r < n; ++r) {
      const T got = outs[static_cast<size_t>(r)][i];
      if (std::memcmp(&got, &want, sizeof(T)) != 0) {
        return "rank " + std::to_string(r) + " element " + std::to_string(i) + ": " + std::to_string(got) +
               ", want the rank-order fold " + std::to_string(want);
      }
    }
  }
  return "";
}

TEST(OneShotOrder, FloatSumsAreTheRankOrderFoldOnEveryRank) {
  for (int n : {2, 3, 5, 8}) {
    for (Protocol proto : kProtos) {
      for (bool in_place : {false, true}) {
        const uint64_t count = 20000 + static_cast<uint64_t>(n);  // several chunks of every protocol
        EXPECT_EQ(CheckRankOrder<float>(OneHost(n), proto, RedOp::kSum, count, in_place), "")
            << n << " ranks " << ProtocolName(proto) << (in_place ? " in place" : "");
        EXPECT_EQ(CheckRankOrder<double>(OneHost(n), proto, RedOp::kAvg, count, in_place), "")
            << n << " ranks " << ProtocolName(proto) << (in_place ? " in place" : "");
      }
    }
  }
}

// Ranks on several hosts (the host number of each rank): one NET edge per
// pair on different hosts, shared memory within one.
const std::vector<std::vector<int>> kLayouts = {{0, 1}, {0, 0, 1, 1}, {0, 1, 1}, {0, 1, 2}};
constexpr Protocol kNetProtos[] = {Protocol::kLL, Protocol::kSimple};

std::string Describe(const std::vector<int>& hosts) {
  std::string text = "hosts";
  for (int h : hosts) text += " " + std::to_string(h);
  return text;
}

// Protocol x size x in/out of place, (type, op) and channels rotating.
TEST(OneShotAcrossHosts, ExactForEverySize) {
  for (const auto& hosts : kLayouts) {
    ThreadWorld world(hosts, NewUnique());
    std::vector<CollCase> cases;
    int k = 0;
    for (Protocol proto : kNetProtos) {
      for (uint64_t count : kSizes) {
        for (bool in_place : {false, true}) {
          const auto type = static_cast<DataType>(k % kNumDataTypes);
          const auto op = static_cast<RedOp>((k / 2) % kNumRedOps);
          cases.push_back(CollCase{Func::kAllReduce, Algo::kOneShot, proto, type, op, count, in_place, 1 + k % 2, 0});
          ++k;
        }
      }
    }
    EXPECT_EQ(RunCases(world, cases), "") << Describe(hosts);
    EXPECT_EQ(SegmentsLeft(world.unique()), 0) << Describe(hosts);
  }
}

TEST(OneShotAcrossHosts, FloatSumsAreTheRankOrderFoldOnEveryRank) {
  for (const auto& hosts : {kLayouts[0], kLayouts[1]}) {
    for (Protocol proto : kNetProtos) {
      for (bool in_place : {false, true}) {
        const uint64_t count = 20000 + hosts.size();  // several chunks of both protocols
        EXPECT_EQ(CheckRankOrder<float>(hosts, proto, RedOp::kSum, count, in_place), "")
            << Describe(hosts) << " " << ProtocolName(proto) << (in_place ? " in place" : "");
        EXPECT_EQ(CheckRankOrder<double>(hosts, proto, RedOp::kAvg, count, in_place), "")
            << Describe(hosts) << " " << ProtocolName(proto) << (in_place ? " in place" : "");
      }
    }
  }
}

// LL128 has no NET edges: forced across hosts it is refused on every rank
// with the reason, every time, and the communicator still runs oneshot/LL.
TEST(OneShotAcrossHosts, ForcedLL128IsInvalidUsage) {
  ThreadWorld world({0, 0, 1, 1}, NewUnique());
  EXPECT_EQ(
      RunRanks(world,
               [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                 std::vector<float> in(8, 1), out(8);
                 CollCall call{Func::kAllReduce, in.data(), out.data(), 8, DataType::kFloat32, RedOp::kSum, 0};
                 const TuneChoice forced{Algo::kOneShot, Protocol::kLL128, 1, 0};
                 for (int attempt = 0; attempt < 2; ++attempt) {  // the refusal is not cached away
                   const Status s = coll.Run(call, &forced);
                   if (s.code() != grInvalidUsage) return "want invalid usage, got " + s.ToString();
                   if (s.message().find("ll128") == std::string::npos || s.message().find("NET") == std::string::npos) {
                     return "the error does not name ll128 and NET: " + s.message();
                   }
                 }
                 const TuneChoice ll{Algo::kOneShot, Protocol::kLL, 1, 0};
                 if (Status s = coll.Run(call, &ll); !s.ok()) return s.ToString();
                 return out[0] == 4 ? "" : "oneshot allreduce gave " + std::to_string(out[0]);
               }),
      "");
  EXPECT_EQ(SegmentsLeft(world.unique()), 0);
}

}  // namespace
}  // namespace gpurun::coll
