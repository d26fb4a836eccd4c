// The planner (coll/planner): works cover each element exactly once per
// block, chunk and loop counts follow chunking.h, and bad inputs are refused.
#include <gtest/gtest.h>

#include <vector>

#include "coll/host/fifo_sizes.h"
#include "coll/patterns/chunking.h"
#include "coll/planner/planner.h"

namespace gpurun::coll {
namespace {

PlanInput Input(Func func, Algo algo, Protocol proto, DataType type, uint64_t count, int nranks, int nch) {
  PlanInput in;
  in.func = func;
  in.algo = algo;
  in.proto = proto;
  in.type = type;
  in.count = count;
  in.nranks = nranks;
  in.ring_index = nranks - 1;
  in.nchannels = nch;
  in.buffer_bytes = HostBufferBytes(proto);
  return in;
}

TEST(Planner, WorksCoverTheCountOnceAndChunksCoverEachPart) {
  for (Func func : {Func::kAllReduce, Func::kAllGather, Func::kReduceScatter, Func::kBroadcast, Func::kReduce}) {
    for (Algo algo : {Algo::kRing, Algo::kTree}) {
      if (!HostAlgoExists(func, algo)) continue;
      for (Protocol proto : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
        for (DataType type : {DataType::kInt8, DataType::kFloat16, DataType::kFloat64}) {
          for (uint64_t count : {1ull, 7ull, 1023ull, 4099ull, 70001ull}) {
            for (int nch : {1, 2, 3, 16}) {
              for (int nranks : {2, 3, 8}) {
                WorkDesc works[kMaxWorks];
                auto n = PlanCollective(Input(func, algo, proto, type, count, nranks, nch), works);
                ASSERT_TRUE(n.ok()) << n.status().ToString();
                std::vector<int> seen(count, 0);
                for (int i = 0; i < *n; ++i) {
                  const WorkDesc& w = works[i];
                  ASSERT_GT(w.part_count, 0u);
                  EXPECT_EQ(w.func, func);
                  EXPECT_EQ(w.nranks, nranks);
                  EXPECT_EQ(w.ring_index, nranks - 1);
                  EXPECT_EQ(w.elem_size, ElemSize(type));
                  EXPECT_EQ((w.part_offset * static_cast<uint64_t>(w.elem_size)) % 16, 0u);
                  const ChunkSteps steps = ChunkStepsFor(func, algo, proto);
                  EXPECT_EQ(w.chunk_steps, steps.chunk_steps);
                  EXPECT_EQ(w.chunk_count * static_cast<uint64_t>(w.elem_size),
                            ChunkBytes(proto, HostBufferBytes(proto), steps.chunk_steps));
                  // A chunk never exceeds what its steps carry.
                  EXPECT_LE(w.chunk_count, w.step_elems * static_cast<uint64_t>(w.chunk_steps));
                  const bool ring_ar = func == Func::kAllReduce && algo == Algo::kRing;
                  const uint64_t per_loop = w.chunk_count * (ring_ar ? static_cast<uint64_t>(nranks) : 1);
                  EXPECT_GE(w.loops * per_loop, w.part_count);
                  EXPECT_LT((w.loops - 1) * per_loop, w.part_count);
                  for (uint64_t e = w.part_offset; e < w.part_offset + w.part_count; ++e) ++seen[e];
                  EXPECT_LT(w.tree, algo == Algo::kTree ? 2 : 1);
                  EXPECT_LT(w.channel, nch);
                }
                for (uint64_t e = 0; e < count; ++e) ASSERT_EQ(seen[e], 1) << e;
              }
            }
          }
        }
      }
    }
  }
}

// On NET edges every step is a message: ring Simple moves one step per chunk
// (no empty steps for a small call) below kNetOneStepMaxBytes; larger calls
// and the other pairs keep their geometry.
TEST(Planner, NetRingSimpleMovesOneStepPerChunk) {
  for (Func func : {Func::kAllReduce, Func::kAllGather, Func::kReduceScatter, Func::kBroadcast, Func::kReduce}) {
    for (Algo algo : {Algo::kRing, Algo::kTree}) {
      if (!HostAlgoExists(func, algo)) continue;
      for (Protocol proto : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
        for (uint64_t count :
             {uint64_t{1}, uint64_t{4099}, kNetOneStepMaxBytes / 4 - 1, kNetOneStepMaxBytes / 4, uint64_t{300007}}) {
          PlanInput in = Input(func, algo, proto, DataType::kFloat32, count, 3, 2);
          in.net = true;
          const bool one = algo == Algo::kRing && proto == Protocol::kSimple && count * 4 < kNetOneStepMaxBytes;
          const ChunkSteps want = one ? ChunkSteps{1, 1} : ChunkStepsFor(func, algo, proto);
          EXPECT_EQ(PlanSteps(in).chunk_steps, want.chunk_steps);
          EXPECT_EQ(PlanSteps(in).slice_steps, want.slice_steps);
          WorkDesc works[kMaxWorks];
          auto n = PlanCollective(in, works);
          ASSERT_TRUE(n.ok()) << n.status().ToString();
          uint64_t covered = 0;
          for (int i = 0; i < *n; ++i) {
            const WorkDesc& w = works[i];
            EXPECT_EQ(w.chunk_steps, want.chunk_steps);
            EXPECT_EQ(w.slice_steps, want.slice_steps);
            EXPECT_EQ(w.chunk_count * 4, ChunkBytes(proto, HostBufferBytes(proto), want.chunk_steps));
            const uint64_t per_loop = w.chunk_count * (func == Func::kAllReduce && algo == Algo::kRing ? 3 : 1);
            EXPECT_GE(w.loops * per_loop, w.part_count);
            covered += w.part_count;
          }
          EXPECT_EQ(covered, count);
        }
      }
    }
  }
}

TEST(Planner, TreeSplitsEachChannelBetweenTheTwoTrees) {
  WorkDesc works[kMaxWorks];
  auto n =
      PlanCollective(Input(Func::kAllReduce, Algo::kTree, Protocol::kSimple, DataType::kFloat32, 1000, 4, 1), works);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(*n, 2);
  EXPECT_EQ(works[0].tree, 0);
  EXPECT_EQ(works[1].tree, 1);
  EXPECT_EQ(works[0].part_count, 500u);
  EXPECT_EQ(works[1].part_offset, 500u);
  EXPECT_EQ(works[0].loops, 1u);
}

TEST(Planner, CountZeroGivesNoWork) {
  WorkDesc works[kMaxWorks];
  auto n = PlanCollective(Input(Func::kAllReduce, Algo::kRing, Protocol::kLL, DataType::kFloat32, 0, 4, 3), works);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0);
}

// max_chunk_bytes (the GPU path's cap) shrinks chunks to whole grains, never
// below one grain, and more loops follow; 0 keeps the FIFO's chunk.
TEST(Planner, MaxChunkBytesCapsTheChunk) {
  WorkDesc works[kMaxWorks];
  PlanInput in = Input(Func::kAllReduce, Algo::kRing, Protocol::kSimple, DataType::kFloat32, 1 << 22, 2, 1);
  ASSERT_TRUE(PlanCollective(in, works).ok());
  const uint64_t full = works[0].chunk_count;
  const uint64_t full_loops = works[0].loops;
  in.max_chunk_bytes = full + 100;  // a quarter of the chunk (full * 4 bytes), plus part of a grain
  ASSERT_TRUE(PlanCollective(in, works).ok());
  EXPECT_EQ(works[0].chunk_count, full / 4);
  EXPECT_EQ(works[0].loops, full_loops * 4);
  in.max_chunk_bytes = 1;  // below one grain: one grain
  ASSERT_TRUE(PlanCollective(in, works).ok());
  EXPECT_EQ(works[0].chunk_count, GrainBytes(Protocol::kSimple) / 4);
  in.max_chunk_bytes = full * 4 * 8;  // above the FIFO's chunk: unchanged
  ASSERT_TRUE(PlanCollective(in, works).ok());
  EXPECT_EQ(works[0].chunk_count, full);
}

TEST(Planner, SmallCountsUseTheFirstChannelsOnly) {
  WorkDesc works[kMaxWorks];
  auto n = PlanCollective(Input(Func::kBroadcast, Algo::kRing, Protocol::kLL, DataType::kInt8, 20, 4, 3), works);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(*n, 2);  // 16-byte cells: 16 + 4
  EXPECT_EQ(works[0].part_count, 16u);
  EXPECT_EQ(works[1].part_count, 4u);
}

// The Tree + LL128 chunk rule (chunking.h) on the GPU tree's 1 MiB LL128
// FIFO (120 KiB chunks): from 3 ranks a 1 MiB allreduce on 16 channels
// halves its chunk to 30 KiB; on 2 ranks it keeps the FIFO's chunk; large
// calls keep it too.
TEST(Planner, TreeLL128ChunksShrinkFromThreeRanks) {
  WorkDesc works[kMaxWorks];
  const auto chunk_bytes = [&](int nranks, uint64_t count) {
    PlanInput in = Input(Func::kAllReduce, Algo::kTree, Protocol::kLL128, DataType::kFloat32, count, nranks, 16);
    in.buffer_bytes = 1 << 20;
    auto n = PlanCollective(in, works);
    EXPECT_TRUE(n.ok() && *n > 0) << n.status().ToString();
    return works[0].chunk_count * 4;
  };
  EXPECT_EQ(chunk_bytes(3, 1 << 18), 30720u);
  EXPECT_EQ(chunk_bytes(4, 1 << 18), 30720u);
  EXPECT_EQ(chunk_bytes(2, 1 << 18), 122880u);
  EXPECT_EQ(chunk_bytes(3, 1 << 28), 122880u);
}

TEST(Planner, RefusesWhatDoesNotExist) {
  WorkDesc works[kMaxWorks];
  auto tree_ag = PlanCollective(Input(Func::kAllGather, Algo::kTree, Protocol::kLL, DataType::kInt8, 20, 4, 1), works);
  EXPECT_EQ(tree_ag.status().code(), grInvalidUsage);
  auto nvls = PlanCollective(Input(Func::kAllReduce, Algo::kNvls, Protocol::kLL, DataType::kInt8, 20, 4, 1), works);
  EXPECT_EQ(nvls.status().code(), grInvalidUsage);
  auto channels =
      PlanCollective(Input(Func::kAllReduce, Algo::kRing, Protocol::kLL, DataType::kInt8, 20, 4, 17), works);
  EXPECT_EQ(channels.status().code(), grInvalidArgument);
  PlanInput small = Input(Func::kAllReduce, Algo::kRing, Protocol::kLL128, DataType::kInt8, 20, 4, 1);
  small.buffer_bytes = kFifoSteps * 128;  // one line per step: less than a grain
  EXPECT_EQ(PlanCollective(small, works).status().code(), grInvalidArgument);
  EXPECT_FALSE(HostAlgoExists(Func::kReduceScatter, Algo::kTree));
  EXPECT_FALSE(HostAlgoExists(Func::kBroadcast, Algo::kTree));
  EXPECT_TRUE(HostAlgoExists(Func::kAllReduce, Algo::kTree));
}

}  // namespace
}  // namespace gpurun::coll
