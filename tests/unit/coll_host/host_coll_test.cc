// HostColl end to end in one process: ranks are threads over ThreadLink.
// Exact results of every (func, algo) x protocol over sizes, in and out of
// place, 1..8 ranks and 1..3 channels with (type, op) rotating; all types x
// ops for the ring allreduce; cross-host edges (NET connectors over UCX, the
// proxy); a dead peer and a timeout naming the peer; no segment left in
// /dev/shm.
#include <gtest/gtest.h>
#include <unistd.h>

#include <dirent.h>
#include <atomic>
#include <filesystem>
#include <functional>
#include <thread>

#include "coll/host/conn_group.h"
#include "p2p/shm/shm_names.h"
#include "runtime/base/params.h"
#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

struct Pair {
  Func func;
  Algo algo;
};
const Pair kPairs[] = {{Func::kAllReduce, Algo::kRing}, {Func::kAllReduce, Algo::kTree},
                       {Func::kAllGather, Algo::kRing}, {Func::kReduceScatter, Algo::kRing},
                       {Func::kBroadcast, Algo::kRing}, {Func::kReduce, Algo::kRing}};
const Protocol kProtos[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
struct TypeOp {
  DataType type;
  RedOp op;
};
const TypeOp kTypeOps[] = {
    {DataType::kFloat32, RedOp::kSum},  {DataType::kInt32, RedOp::kMax},    {DataType::kFloat16, RedOp::kSum},
    {DataType::kBfloat16, RedOp::kAvg}, {DataType::kUint8, RedOp::kMin},    {DataType::kInt64, RedOp::kProd},
    {DataType::kFloat64, RedOp::kAvg},  {DataType::kInt8, RedOp::kSum},     {DataType::kUint32, RedOp::kAvg},
    {DataType::kUint64, RedOp::kSum},   {DataType::kFloat32, RedOp::kProd}, {DataType::kInt32, RedOp::kAvg}};

// Every pair x protocol x size x in/out of place; (type, op), channels and
// root rotate with the case number. With `net` (NET edges) no LL128.
std::vector<CollCase> MatrixCases(int nranks, std::initializer_list<uint64_t> sizes, bool net = false) {
  std::vector<CollCase> cases;
  size_t k = 0;
  for (const Pair& p : kPairs) {
    for (Protocol proto : kProtos) {
      if (net && proto == Protocol::kLL128) continue;
      for (uint64_t count : sizes) {
        for (bool in_place : {false, true}) {
          const TypeOp& to = kTypeOps[k % std::size(kTypeOps)];
          cases.push_back(CollCase{p.func, p.algo, proto, to.type, to.op, count, in_place, 1 + static_cast<int>(k % 3),
                                   static_cast<int>(k % static_cast<size_t>(nranks))});
          ++k;
        }
      }
    }
  }
  return cases;
}

class MatrixTest : public ::testing::TestWithParam<int> {};

TEST_P(MatrixTest, SmallSizesAllPairsAndProtocols) {
  const int n = GetParam();
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  EXPECT_EQ(RunCases(world, MatrixCases(n, {0, 1, 7, 1023, 4096 + 3})), "");
  EXPECT_EQ(SegmentsLeft(world.unique()), 0);
}

INSTANTIATE_TEST_SUITE_P(Ranks, MatrixTest, ::testing::Values(1, 2, 3, 4, 5, 8));

class LargeTest : public ::testing::TestWithParam<int> {};

TEST_P(LargeTest, OneMiBPlusAllPairsAndProtocols) {
  const int n = GetParam();
  ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
  std::vector<CollCase> cases;
  int k = 0;
  for (const Pair& p : kPairs) {
    for (Protocol proto : kProtos) {
      // 1 MiB + 5 bytes of int8, and 256 Ki + 3 floats.
      cases.push_back(
          CollCase{p.func, p.algo, proto, DataType::kInt8, RedOp::kSum, (1u << 20) + 5, k % 2 == 0, 1 + k % 3, k % n});
      ++k;
      if (proto == Protocol::kSimple) {
        cases.push_back(CollCase{p.func, p.algo, proto, DataType::kFloat32, RedOp::kSum, (1u << 18) + 3, k % 2 == 0,
                                 1 + k % 3, k % n});
      }
    }
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

INSTANTIATE_TEST_SUITE_P(Ranks, LargeTest, ::testing::Values(2, 3, 4));

TEST(HostCollTypes, EveryTypeAndOpRingAndTree) {
  ThreadWorld world({0, 0, 0}, NewUnique());
  std::vector<CollCase> cases;
  for (int t = 0; t < kNumDataTypes; ++t) {
    for (int o = 0; o < kNumRedOps; ++o) {
      const auto type = static_cast<DataType>(t);
      const auto op = static_cast<RedOp>(o);
      cases.push_back(CollCase{Func::kAllReduce, Algo::kRing, Protocol::kSimple, type, op, 1023, false, 2, 0});
      cases.push_back(CollCase{Func::kAllReduce, Algo::kTree, Protocol::kLL, type, op, 77, true, 1, 0});
      cases.push_back(CollCase{Func::kReduceScatter, Algo::kRing, Protocol::kLL128, type, op, 100, false, 1, 0});
      cases.push_back(CollCase{Func::kReduce, Algo::kRing, Protocol::kLL, type, op, 33, false, 1, 2});
    }
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

// Ranks on several hosts: cross-host edges are NET connectors (a proxy per
// rank moving steps over UCX), same-host ones shared memory.
TEST(HostCollCrossHost, MixedHostsAllPairsAndProtocols) {
  for (const std::vector<int>& hosts : {std::vector<int>{0, 0, 1, 1}, std::vector<int>{0, 1, 2}}) {
    ThreadWorld world(hosts, NewUnique());
    EXPECT_EQ(RunCases(world, MatrixCases(world.size(), {0, 7, 4096 + 3, 70000, 300001}, true)), "")
        << "hosts " << hosts.size();
    EXPECT_EQ(SegmentsLeft(world.unique()), 0);
  }
}

// GPURUN_COLL_NET=always: every ring / tree edge on NET, all ranks on one host.
TEST(HostCollNet, AlwaysNetOnOneHost) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_COLL_NET", "always").ok());
  for (int n : {2, 3, 5}) {
    ThreadWorld world(std::vector<int>(static_cast<size_t>(n), 0), NewUnique());
    EXPECT_EQ(RunCases(world, MatrixCases(n, {1, 1023, 70000}, true)), "") << n << " ranks";
    EXPECT_EQ(SegmentsLeft(world.unique()), 0);
  }
  ParamRegistry::Global().Reset();
}

// GPURUN_FIRST_STEP near LL's clean-up steps (2^31 - 8 .. 2^31 - 1, and the
// same below 2^32) and the 32-bit flag's wrap: LL FIFOs start holding, in
// each slot, the flag the slot's first step after its clean-up carries
// (coll/ll_start.h), so results stay exact only if the clean-up rewrites
// the slot in time. Every function on the ring, the tree and oneshot over
// LL, and the other protocols along; shared memory and NET.
TEST(HostCollFirstStep, LLCleanUpAndFlagWrapKeepResultsExact) {
  const Func funcs[] = {Func::kAllReduce, Func::kBroadcast, Func::kAllGather, Func::kReduce, Func::kReduceScatter};
  const uint64_t counts[] = {1, 7, 1023, 5000, 64};
  std::vector<CollCase> cases;
  for (int k = 0; k < 40; ++k) {
    const Func f = funcs[k % 5];
    const auto type = k % 2 == 0 ? DataType::kInt32 : DataType::kFloat32;
    cases.push_back(CollCase{f, Algo::kRing, Protocol::kLL, type, RedOp::kSum, counts[k % 5], k % 3 == 0, 1, k % 2});
    if (k % 4 == 0) {
      cases.push_back(
          CollCase{Func::kAllReduce, Algo::kTree, Protocol::kLL, type, RedOp::kMax, counts[k % 5], false, 1, 0});
      cases.push_back(
          CollCase{Func::kAllReduce, Algo::kOneShot, Protocol::kLL, type, RedOp::kSum, counts[k % 5], true, 1, 0});
      cases.push_back(CollCase{f, Algo::kRing, Protocol::kSimple, type, RedOp::kSum, counts[k % 5], false, 1, 0});
    }
  }
  for (uint64_t first : {(uint64_t{1} << 31) - 20, (uint64_t{1} << 32) - 20, (uint64_t{1} << 33) - 12}) {
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_FIRST_STEP", std::to_string(first)).ok());
    for (const std::vector<int>& hosts : {std::vector<int>{0, 0, 0}, std::vector<int>{0, 1}}) {
      ThreadWorld world(hosts, NewUnique());
      EXPECT_EQ(RunCases(world, cases), "") << "first step " << first << ", " << hosts.size() << " ranks";
      EXPECT_EQ(SegmentsLeft(world.unique()), 0);
    }
  }
  ParamRegistry::Global().Reset();
}

// Ring Simple moves 4-step chunks for allreduce / allgather / reducescatter
// and 1-step chunks for broadcast / reduce; the executor rounds an edge's
// step up to a chunk, and on NET the skipped steps still travel (empty), or
// the receiver's proxy would wait for them forever.
TEST(HostCollNet, StepRoundingAcrossFunctions) {
  ThreadWorld world({0, 1, 2}, NewUnique());
  std::vector<CollCase> cases;
  const Func funcs[] = {Func::kBroadcast, Func::kAllReduce, Func::kReduce,        Func::kReduce,
                        Func::kAllGather, Func::kBroadcast, Func::kReduceScatter, Func::kAllReduce};
  int k = 0;
  for (Func f : funcs) {
    for (uint64_t count : {5ull, 200000ull}) {
      cases.push_back(
          CollCase{f, Algo::kRing, Protocol::kSimple, DataType::kInt32, RedOp::kSum, count, false, 1, k % 3});
      ++k;
    }
  }
  EXPECT_EQ(RunCases(world, cases), "");
}

// The same on shared memory: the receiver of an edge releases the steps it
// skips when it rounds up, or the sender's credit, counted from the head,
// lags by up to 3 slots. Four reduces (one step per chunk; each leaves the
// edge into its root's next idle, so every edge ends 57 steps on) then an
// allgather (4-step chunks, from step 60): with 5 free slots instead of 8
// every rank held a received chunk while it waited for credit to send the
// next, a deadlock.
TEST(HostCollRounding, SkippedStepsAreReleasedOnSharedMemory) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "20s").ok());
  for (Func last : {Func::kAllGather, Func::kReduceScatter}) {
    ThreadWorld world({0, 0, 0, 0}, NewUnique());
    std::vector<CollCase> cases;
    for (int root = 0; root < 4; ++root) {
      cases.push_back(CollCase{Func::kReduce, Algo::kRing, Protocol::kSimple, DataType::kInt32, RedOp::kMax, 300000,
                               false, 1, root});
    }
    cases.push_back(CollCase{last, Algo::kRing, Protocol::kSimple, DataType::kInt32, RedOp::kSum, 300000, false, 1, 0});
    EXPECT_EQ(RunCases(world, cases), "") << FuncName(last);
  }
  ParamRegistry::Global().Reset();
}

// A forced LL128 across hosts is an error naming why, on every rank.
TEST(HostCollNet, ForcedLL128AcrossHostsIsInvalidUsage) {
  ThreadWorld world({0, 1}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> buf(64);
                       CollCall call{Func::kAllReduce, buf.data(), buf.data(), 64, DataType::kFloat32, RedOp::kSum, 0};
                       const TuneChoice forced{Algo::kRing, Protocol::kLL128, 1, 0};
                       const Status s = coll.Run(call, &forced);
                       if (s.code() != grInvalidUsage) return "want invalid usage, got " + s.ToString();
                       if (s.message().find("LL128 is off on NET") == std::string::npos) return s.ToString();
                       return "";
                     }),
            "");
}

// A peer that goes away (its HostColl, and so its proxy, destroyed) while
// the other waits for NET data: the wait fails naming it, nothing hangs, and
// both proxies stop.
TEST(HostCollNet, DeadPeerAcrossHostsIsNamed) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "20s").ok());
  ThreadWorld world({0, 1}, NewUnique());
  std::string rank0_error;
  RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld& w) -> std::string {
    const CollCase c{Func::kAllReduce, Algo::kRing, Protocol::kLL, DataType::kFloat32, RedOp::kSum, 100, false, 1, 0};
    if (std::string e = RunAndCheck(coll, rank, 2, c); !e.empty()) return e;
    if (rank == 1) {
      w.MarkDead(1);
      return "";
    }
    rank0_error = RunAndCheck(coll, rank, 2, c);
    return "";
  });
  ParamRegistry::Global().Reset();
  EXPECT_NE(rank0_error.find("remote"), std::string::npos) << rank0_error;
  EXPECT_NE(rank0_error.find("rank 1 (test host 1)"), std::string::npos) << rank0_error;
}

// Hosts holding different numbers of ranks: every rank must make the same
// choice (it used to take its own host's count as everyone's, so ranks chose
// different protocols and waited for each other until the timeout).
TEST(HostCollCrossHost, UnevenHostsChooseAlike) {
  // A wrong choice shows as a timeout, not a hang.
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "10s").ok());
  for (const std::vector<int>& hosts : {std::vector<int>{0, 0, 1}, std::vector<int>{0, 1, 1, 1, 2}}) {
    ThreadWorld world(hosts, NewUnique());
    const int n = world.size();
    EXPECT_EQ(RunRanks(world,
                       [n](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                         for (uint64_t count : {7ull, 1000ull, 70000ull}) {
                           std::vector<int32_t> in(count, rank + 1), out(count, -1);
                           CollCall call{Func::kAllReduce, in.data(),   out.data(), count,
                                         DataType::kInt32, RedOp::kSum, 0};
                           if (Status s = coll.Run(call); !s.ok()) return s.ToString();
                           for (int32_t v : out) {
                             if (v != n * (n + 1) / 2) return "allreduce gave " + std::to_string(v);
                           }
                         }
                         return "";
                       }),
              "")
        << hosts.size() << " ranks";
  }
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "600").ok());
}

// Without a forced choice the tuner picks; results are the same.
TEST(HostCollTuned, RunAsksTheTuner) {
  ThreadWorld world({0, 0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       for (uint64_t count : {1ull, 1000ull, 300000ull}) {
                         std::vector<int32_t> in(count, rank + 1), out(count, -1);
                         CollCall call{Func::kAllReduce, in.data(),   out.data(), count,
                                       DataType::kInt32, RedOp::kSum, 0};
                         if (Status s = coll.Run(call); !s.ok()) return s.ToString();
                         for (int32_t v : out) {
                           if (v != 6) return "allreduce of " + std::to_string(count) + " gave " + std::to_string(v);
                         }
                       }
                       return "";
                     }),
            "");
}

TEST(HostCollErrors, DeadPeerIsNamed) {
  ThreadWorld world({0, 0}, NewUnique());
  std::string rank0_error;
  RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld& w) -> std::string {
    const CollCase c{
        Func::kAllReduce, Algo::kRing, Protocol::kSimple, DataType::kFloat32, RedOp::kSum, 100, false, 1, 0};
    if (std::string e = RunAndCheck(coll, rank, 2, c); !e.empty()) return e;
    if (rank == 1) {
      w.MarkDead(1);
      return "";
    }
    rank0_error = RunAndCheck(coll, rank, 2, c);
    return "";
  });
  EXPECT_NE(rank0_error.find("remote"), std::string::npos) << rank0_error;
  EXPECT_NE(rank0_error.find("rank 1 (test host 0)"), std::string::npos) << rank0_error;
}

// A ring of 4 whose rank 3 died: rank 1 waits on rank 0, which lives on
// (its own call failed on rank 3); within kOtherRanksCheckS rank 1's wait
// names rank 3 too, instead of timing out on rank 0.
TEST(HostCollErrors, DeadRankElsewhereInTheRingIsNamed) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "20").ok());
  ThreadWorld world({0, 0, 0, 0}, NewUnique());
  std::string errors[4];
  const auto start = std::chrono::steady_clock::now();
  RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld& w) -> std::string {
    const CollCase c{
        Func::kAllReduce, Algo::kRing, Protocol::kSimple, DataType::kFloat32, RedOp::kSum, 100000, false, 1, 0};
    if (std::string e = RunAndCheck(coll, rank, 4, c); !e.empty()) return e;
    if (rank == 3) {
      w.MarkDead(3);
      return "";
    }
    errors[rank] = RunAndCheck(coll, rank, 4, c);
    return "";
  });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  ParamRegistry::Global().Reset();
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_NE(errors[rank].find("rank 3 (test host 0)"), std::string::npos) << rank << ": " << errors[rank];
    EXPECT_EQ(errors[rank].find("timeout"), std::string::npos) << rank << ": " << errors[rank];
  }
  EXPECT_NE(errors[1].find("another rank of the communicator failed"), std::string::npos) << errors[1];
  EXPECT_LT(took.count(), 10.0);
}

TEST(HostCollErrors, TimeoutNamesCollectiveAndPeer) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", "200ms").ok());
  ThreadWorld world({0, 0}, NewUnique());
  std::string rank0_error;
  std::atomic<bool> finished{false};
  RunRanks(world, [&](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
    const CollCase c{Func::kAllReduce, Algo::kTree, Protocol::kLL, DataType::kInt32, RedOp::kSum, 10, false, 1, 0};
    if (std::string e = RunAndCheck(coll, rank, 2, c); !e.empty()) return e;
    if (rank == 1) {  // alive but silent until rank 0 gave up
      while (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return "";
    }
    rank0_error = RunAndCheck(coll, rank, 2, c);
    finished = true;
    return "";
  });
  ParamRegistry::Global().Reset();
  EXPECT_NE(rank0_error.find("timeout"), std::string::npos) << rank0_error;
  EXPECT_NE(rank0_error.find("allreduce tree/ll channel 0"), std::string::npos) << rank0_error;
  EXPECT_NE(rank0_error.find("rank 1 (test host 0)"), std::string::npos) << rank0_error;
}

TEST(HostCollErrors, ForcedMissingAlgorithmIsInvalidUsage) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> buf(8);
                       CollCall call{Func::kAllGather, buf.data(), buf.data(), 4, DataType::kFloat32, RedOp::kSum, 0};
                       const TuneChoice forced{Algo::kTree, Protocol::kSimple, 1, 0};
                       const Status s = coll.Run(call, &forced);
                       return s.code() == grInvalidUsage ? "" : "want invalid usage, got " + s.ToString();
                     }),
            "");
}

TEST(HostCollNames, SegmentsAreRemovedByTheLaunchersCleanup) {
  // With UniqueName() = "<nspace>-<digits>" a segment belongs to the job.
  const std::string name = ConnGroup::SegmentName("job7-12", ConnGroup::GroupIndex(Algo::kTree, Protocol::kLL, 3), 5);
  EXPECT_TRUE(p2p::IsShmSegmentOf("job7", name.substr(1))) << name;
  EXPECT_NE(name, p2p::ShmSegmentName("job7", 5));
  EXPECT_NE(ConnGroup::SegmentName("j-1", 0, 12), ConnGroup::SegmentName("j-11", 0, 2));
}

}  // namespace
}  // namespace gpurun::coll
