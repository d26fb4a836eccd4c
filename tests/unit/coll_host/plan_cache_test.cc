// The plan cache (plan_cache.h): keys, and HostColl results when calls of
// many shapes alternate (slots collide and are replaced), when
// GPURUN_NCHANNELS changes between identical calls, and when a forced choice
// that is refused follows a cached one of the same shape.
#include <gtest/gtest.h>

#include <vector>

#include "coll/host/plan_cache.h"
#include "runtime/base/params.h"
#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

TEST(PlanCacheKey, EveryInputOfTheChoiceIsInTheKey) {
  CollCall call{Func::kAllReduce, nullptr, nullptr, 10, DataType::kFloat32, RedOp::kSum, 0};
  const PlanKey base = PlanCache::KeyOf(call, nullptr, 0);
  EXPECT_EQ(base, PlanCache::KeyOf(call, nullptr, 0));
  EXPECT_NE(base, PlanCache::KeyOf(call, nullptr, 2)) << "GPURUN_NCHANNELS";
  const TuneChoice forced{Algo::kRing, Protocol::kLL, 1, 0};
  EXPECT_NE(base, PlanCache::KeyOf(call, &forced, 0)) << "forced against automatic";
  const TuneChoice other{Algo::kRing, Protocol::kLL, 2, 0};
  EXPECT_NE(PlanCache::KeyOf(call, &forced, 0), PlanCache::KeyOf(call, &other, 0)) << "forced channels";
  for (auto change : std::vector<void (*)(CollCall&)>{
           [](CollCall& c) { c.count = 11; }, [](CollCall& c) { c.type = DataType::kInt32; },
           [](CollCall& c) { c.op = RedOp::kMax; }, [](CollCall& c) { c.root = 1; },
           [](CollCall& c) { c.func = Func::kReduce; }}) {
    CollCall changed = call;
    change(changed);
    EXPECT_NE(base, PlanCache::KeyOf(changed, nullptr, 0));
  }
}

// More shapes than slots, each run three times in turn, every result checked.
TEST(PlanCacheRuns, AlternatingShapesStayExact) {
  ThreadWorld world({0, 0, 0}, NewUnique());
  std::vector<CollCase> shapes;
  const Algo algos[] = {Algo::kRing, Algo::kTree, Algo::kOneShot};
  for (int k = 0; k < 3 * kPlanCacheSlots; ++k) {
    const Protocol proto = static_cast<Protocol>(k % kNumProtocols);
    shapes.push_back(CollCase{Func::kAllReduce, algos[k % 3], proto, static_cast<DataType>(k % kNumDataTypes),
                              static_cast<RedOp>(k % kNumRedOps), 1 + static_cast<uint64_t>(k * 37 % 500), k % 2 == 0,
                              1 + k % 2, 0});
    shapes.push_back(CollCase{Func::kReduce, Algo::kRing, proto, DataType::kInt32, RedOp::kSum, 100, false, 1, k % 3});
  }
  std::vector<CollCase> cases;
  for (int round = 0; round < 3; ++round) cases.insert(cases.end(), shapes.begin(), shapes.end());
  EXPECT_EQ(RunCases(world, cases), "");
}

// The automatic choice: identical calls before and after GPURUN_NCHANNELS changes.
TEST(PlanCacheRuns, ChannelParameterChangeIsSeen) {
  ThreadWorld world({0, 0}, NewUnique());
  std::string error = RunRanks(world, [](int rank, HostCollImpl& coll, ThreadWorld&) -> std::string {
    std::vector<int32_t> in(5000, rank + 1), out(5000);
    CollCall call{Func::kAllReduce, in.data(), out.data(), in.size(), DataType::kInt32, RedOp::kSum, 0};
    for (const char* nch : {"0", "3", "0"}) {
      if (rank == 0) {
        if (Status s = ParamRegistry::Global().Override("GPURUN_NCHANNELS", nch); !s.ok()) return s.ToString();
      }
      std::vector<int32_t> ok_sum(1, 0), one(1, 1);
      CollCall sync{Func::kAllReduce, one.data(), ok_sum.data(), 1, DataType::kInt32, RedOp::kSum, 0};
      const TuneChoice ring{Algo::kRing, Protocol::kLL, 1, 0};
      if (Status s = coll.Run(sync, &ring); !s.ok()) return s.ToString();  // both see the new value
      for (int rep = 0; rep < 2; ++rep) {
        std::fill(out.begin(), out.end(), -1);
        if (Status s = coll.Run(call); !s.ok()) return s.ToString();
        for (int32_t v : out) {
          if (v != 3) return "GPURUN_NCHANNELS=" + std::string(nch) + ": got " + std::to_string(v);
        }
      }
      if (Status s = coll.Run(sync, &ring); !s.ok()) return s.ToString();  // before rank 0 changes it again
    }
    return "";
  });
  ParamRegistry::Global().Reset();
  EXPECT_EQ(error, "");
}

// A refused forced choice is refused even when the same shape ran before.
TEST(PlanCacheRuns, RefusalsAreNotCachedAway) {
  ThreadWorld world({0, 0}, NewUnique());
  EXPECT_EQ(RunRanks(world,
                     [](int, HostCollImpl& coll, ThreadWorld&) -> std::string {
                       std::vector<float> in(64, 1), out(64);
                       CollCall call{Func::kAllReduce, in.data(), out.data(), 16, DataType::kFloat32, RedOp::kSum, 0};
                       const TuneChoice ring{Algo::kRing, Protocol::kLL, 1, 0};
                       if (Status s = coll.Run(call, &ring); !s.ok()) return s.ToString();
                       const TuneChoice bad{Algo::kRing, Protocol::kLL, kMaxChannels + 1, 0};
                       for (int i = 0; i < 2; ++i) {
                         if (coll.Run(call, &bad).code() != grInvalidUsage) return "channels not refused";
                       }
                       call.func = Func::kAllGather;
                       const TuneChoice tree{Algo::kTree, Protocol::kLL, 1, 0};
                       if (coll.Run(call, &tree).code() != grInvalidUsage) return "tree allgather not refused";
                       call.func = Func::kAllReduce;
                       if (Status s = coll.Run(call, &ring); !s.ok()) return s.ToString();
                       return out[0] == 2 ? "" : "allreduce gave " + std::to_string(out[0]);
                     }),
            "");
}

}  // namespace
}  // namespace gpurun::coll
