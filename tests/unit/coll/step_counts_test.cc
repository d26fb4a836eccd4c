// Step counts: NCCL's patterns per (function, algorithm), the critical-path
// step counts checked against simulated trees and chains, and the per-
// connection FIFO step counts checked against the chunking of the channels.
#include "coll/patterns/step_counts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "coll/patterns/channel_split.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/double_binary_tree.h"
#include "coll_test_util.h"

namespace gpurun::coll {
namespace {

TEST(StepCountsTest, NcclPatterns) {
  EXPECT_EQ(PatternOf(Func::kBroadcast, Algo::kRing), Pattern::kPipelineFrom);
  EXPECT_EQ(PatternOf(Func::kReduce, Algo::kRing), Pattern::kPipelineTo);
  EXPECT_EQ(PatternOf(Func::kAllGather, Algo::kRing), Pattern::kRing);
  EXPECT_EQ(PatternOf(Func::kReduceScatter, Algo::kRing), Pattern::kRing);
  EXPECT_EQ(PatternOf(Func::kAllReduce, Algo::kRing), Pattern::kRingTwice);
  EXPECT_EQ(PatternOf(Func::kBroadcast, Algo::kTree), Pattern::kTreeDown);
  EXPECT_EQ(PatternOf(Func::kReduce, Algo::kTree), Pattern::kTreeUp);
  EXPECT_EQ(PatternOf(Func::kAllReduce, Algo::kTree), Pattern::kTreeUpDown);
}

TEST(StepCountsTest, RingAndChainSteps) {
  for (int n : testing::RankCounts()) {
    const int expect = n - 1;
    EXPECT_EQ(AlgorithmSteps(Func::kAllReduce, Algo::kRing, n), 2 * expect);
    EXPECT_EQ(AlgorithmSteps(Func::kAllGather, Algo::kRing, n), expect);
    EXPECT_EQ(AlgorithmSteps(Func::kReduceScatter, Algo::kRing, n), expect);
    EXPECT_EQ(AlgorithmSteps(Func::kBroadcast, Algo::kRing, n), expect);
    EXPECT_EQ(AlgorithmSteps(Func::kReduce, Algo::kRing, n), expect);
    EXPECT_EQ(LoopShapeOf(Pattern::kRingTwice, n).steps_per_loop, 2 * expect);
    EXPECT_EQ(LoopShapeOf(Pattern::kRing, n).steps_per_loop, expect);
    EXPECT_EQ(LoopShapeOf(Pattern::kRing, n).chunks_per_loop, n);
    EXPECT_EQ(LoopShapeOf(Pattern::kPipelineFrom, n).steps_per_loop, 1);
    EXPECT_EQ(LoopShapeOf(Pattern::kTreeUpDown, n).chunks_per_loop, 1);
  }
  EXPECT_EQ(AlgorithmSteps(Func::kAllReduce, Algo::kTree, 1, 0), 0);
}

// Rounds for a tree reduce when a rank sends up once all its children have:
// must equal the tree depth, and the broadcast back down takes as many.
TEST(StepCountsTest, TreeStepsAreTheDepth) {
  for (int n : testing::RankCounts()) {
    for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " tree=" << tree);
      std::vector<int> waiting(n), sent_round(n, -1);
      for (int r = 0; r < n; ++r) waiting[r] = DoubleTreeLinks(n, r, tree).NumChildren();
      const int root = DoubleTreeRoot(n, tree);
      int rounds = 0;
      while (waiting[root] > 0) {
        ++rounds;
        std::vector<int> senders;
        for (int r = 0; r < n; ++r) {
          if (r != root && sent_round[r] < 0 && waiting[r] == 0) senders.push_back(r);
        }
        ASSERT_FALSE(senders.empty());
        for (int r : senders) {
          sent_round[r] = rounds;
          --waiting[DoubleTreeLinks(n, r, tree).parent];
        }
      }
      const int depth = TreeDepth(n, tree);
      EXPECT_EQ(rounds, depth);
      EXPECT_EQ(AlgorithmSteps(Func::kReduce, Algo::kTree, n, depth), depth);
      EXPECT_EQ(AlgorithmSteps(Func::kBroadcast, Algo::kTree, n, depth), depth);
      EXPECT_EQ(AlgorithmSteps(Func::kAllReduce, Algo::kTree, n, depth), 2 * depth);
    }
  }
}

TEST(StepCountsTest, ConnectionStepsExample) {
  // 8 ranks, 16 MiB, one channel, Simple: 2 MiB chunks, one loop of 8 chunks,
  // 14 chunk transfers of 4 steps each.
  const uint64_t chunk = ChunkBytes(Protocol::kSimple, kSimpleDefaultBufferBytes, 4);
  EXPECT_EQ(LoopsFor(Pattern::kRingTwice, 8, 16u << 20, 1, chunk), 1u);
  EXPECT_EQ(ConnectionSteps(Pattern::kRingTwice, 8, 16u << 20, 1, chunk, 4), 56u);
  EXPECT_EQ(ConnectionSteps(Pattern::kRingTwice, 8, (16u << 20) + 1, 1, chunk, 4), 112u);
  EXPECT_EQ(ConnectionSteps(Pattern::kPipelineFrom, 8, 16u << 20, 2, 524288, 1), 16u);
}

// NCCL's loop count (total bytes over channels) agrees with the loops the
// busiest channel runs when its part is cut as in channel_split.h.
TEST(StepCountsTest, LoopCountMatchesChannelChunking) {
  for (Protocol proto : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
    const ChunkSteps steps = ChunkStepsFor(Func::kAllReduce, Algo::kRing, proto);
    for (uint64_t buffer : {GeometryOf(proto).default_buffer_bytes, uint64_t{32768}}) {
      for (int elem : {1, 4, 8}) {
        const uint64_t chunk_count = ChunkCount(proto, buffer, steps.chunk_steps, elem);
        for (uint64_t count : {uint64_t{1}, uint64_t{7}, uint64_t{4099}, uint64_t{1} << 20, (uint64_t{1} << 22) + 5}) {
          for (int n : {2, 3, 8, 17}) {
            for (int nchannels : {1, 2, 5, 16}) {
              uint64_t loops = 0;
              for (int c = 0; c < nchannels; ++c) {
                const Range part = ChannelPart(count, elem, nchannels, c);
                loops = std::max(loops, RingAllReduceLoops(part.count, n, chunk_count));
              }
              const uint64_t bytes = count * elem;
              EXPECT_EQ(loops, LoopsFor(Pattern::kRingTwice, n, bytes, nchannels, chunk_count * elem))
                  << "proto=" << int(proto) << " count=" << count << " n=" << n << " C=" << nchannels;
              EXPECT_EQ(
                  ConnectionSteps(Pattern::kRingTwice, n, bytes, nchannels, chunk_count * elem, steps.chunk_steps),
                  loops * 2 * (n - 1) * steps.chunk_steps);
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace gpurun::coll
