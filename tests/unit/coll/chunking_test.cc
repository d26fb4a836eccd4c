// Chunking: NCCL's chunk sizes per protocol, and the chunks and slices of
// every channel part tiling the buffer exactly once (counts 0, 1, 7, 1023,
// 4099, 1M+5; several element sizes, rank and channel counts, FIFO sizes).
#include "coll/patterns/chunking.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "coll/wire_format.h"

namespace gpurun::coll {
namespace {

const std::vector<uint64_t> kCounts = {0, 1, 7, 1023, 4099, (1u << 20) + 5};
const Protocol kProtocols[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
// The defaults, and 32 KiB (valid for all three) so that many loops run.
std::vector<uint64_t> Buffers(Protocol proto) { return {GeometryOf(proto).default_buffer_bytes, 32768}; }

TEST(ChunkingTest, NcclChunkAndSliceSteps) {
  for (Func f : {Func::kAllReduce, Func::kAllGather, Func::kReduceScatter}) {
    const ChunkSteps s = ChunkStepsFor(f, Algo::kRing, Protocol::kSimple);
    EXPECT_EQ(s.chunk_steps, 4);
    EXPECT_EQ(s.slice_steps, 2);
    EXPECT_EQ(s.SlicesPerChunk(), 2);
  }
  for (Func f : {Func::kBroadcast, Func::kReduce})
    EXPECT_EQ(ChunkStepsFor(f, Algo::kRing, Protocol::kSimple).chunk_steps, 1);
  EXPECT_EQ(ChunkStepsFor(Func::kAllReduce, Algo::kRing, Protocol::kLL).chunk_steps, 1);
  EXPECT_EQ(ChunkStepsFor(Func::kAllReduce, Algo::kRing, Protocol::kLL128).chunk_steps, 1);
  EXPECT_EQ(ChunkStepsFor(Func::kAllReduce, Algo::kTree, Protocol::kSimple).chunk_steps, 1);
}

TEST(ChunkingTest, NcclChunkBytes) {
  EXPECT_EQ(GrainBytes(Protocol::kLL), 16u);
  EXPECT_EQ(GrainBytes(Protocol::kLL128), 1920u);
  EXPECT_EQ(GrainBytes(Protocol::kSimple), 512u);
  EXPECT_EQ(ChunkBytes(Protocol::kLL, kLLDefaultBufferBytes, 1), 32768u);
  EXPECT_EQ(ChunkBytes(Protocol::kLL128, kLL128DefaultBufferBytes, 1), 576000u);
  EXPECT_EQ(ChunkBytes(Protocol::kSimple, kSimpleDefaultBufferBytes, 1), 524288u);
  EXPECT_EQ(ChunkBytes(Protocol::kSimple, kSimpleDefaultBufferBytes, 4), 2u << 20);  // digest §5.5: 2 MiB
  EXPECT_EQ(ChunkCount(Protocol::kSimple, kSimpleDefaultBufferBytes, 4, 4), 524288u);
  for (Protocol p : kProtocols) {
    for (uint64_t buffer : Buffers(p)) {
      const uint64_t chunk = ChunkBytes(p, buffer, 1);
      EXPECT_EQ(chunk % GrainBytes(p), 0u);
      EXPECT_LE(chunk, StepDataBytes(p, buffer)) << "a chunk fits in the step's data";
    }
  }
}

TEST(ChunkingTest, RingAllReduceLastLoopAlignsChunksTo16Bytes) {
  // 100 floats, 3 ranks: ceil(100 / 3) = 34 -> 36 (16 bytes = 4 floats).
  const auto c0 = RingAllReduceChunk(100, 3, 1024, 4, 0, 0);
  const auto c1 = RingAllReduceChunk(100, 3, 1024, 4, 0, 1);
  const auto c2 = RingAllReduceChunk(100, 3, 1024, 4, 0, 2);
  EXPECT_EQ(c0.offset, 0u);
  EXPECT_EQ(c0.count, 36u);
  EXPECT_EQ(c1.offset, 36u);
  EXPECT_EQ(c1.count, 36u);
  EXPECT_EQ(c2.offset, 72u);
  EXPECT_EQ(c2.count, 28u);
  // 5 floats, 4 ranks: chunks of 4, then 1, then two empty ones at the end.
  EXPECT_EQ(RingAllReduceChunk(5, 4, 1024, 4, 0, 1).count, 1u);
  EXPECT_EQ(RingAllReduceChunk(5, 4, 1024, 4, 0, 2).count, 0u);
  EXPECT_EQ(RingAllReduceChunk(5, 4, 1024, 4, 0, 3).offset, 5u);
  // Full loops use the full chunk size.
  EXPECT_EQ(RingAllReduceLoops(3 * 1024 + 1, 3, 1024), 2u);
  EXPECT_EQ(RingAllReduceChunk(3 * 1024 + 1, 3, 1024, 4, 0, 2).offset, 2048u);
  EXPECT_EQ(RingAllReduceChunk(3 * 1024 + 1, 3, 1024, 4, 1, 0).count, 1u);
}

TEST(ChunkingTest, SimpleSlicesAreNcclSized) {
  const ChunkSteps steps = ChunkStepsFor(Func::kAllReduce, Algo::kRing, Protocol::kSimple);
  const uint64_t step_elems = StepDataBytes(Protocol::kSimple, kSimpleDefaultBufferBytes) / 4;
  // A full 2 MiB chunk of floats: two 1 MiB slices (digest §5.5).
  EXPECT_EQ(ChunkSlice(524288, step_elems, steps, 0).count, 262144u);
  EXPECT_EQ(ChunkSlice(524288, step_elems, steps, 1).offset, 262144u);
  // A small chunk fits in the first slice (minimum slice: 1/32 of two steps).
  EXPECT_EQ(ChunkSlice(100, step_elems, steps, 0).count, 100u);
  EXPECT_EQ(ChunkSlice(100, step_elems, steps, 1).count, 0u);
  // Every call consumes chunk_steps steps, empty slices included.
  EXPECT_EQ(SliceStep(0, 0, steps), 0u);
  EXPECT_EQ(SliceStep(0, 1, steps), 2u);
  EXPECT_EQ(SliceStep(3, 1, steps), 14u);
}

// Checks that one chunk's slices tile it and fit in their steps.
void ExpectSlicesTile(const Range& chunk, uint64_t step_elems, ChunkSteps steps) {
  uint64_t next = 0;
  for (int s = 0; s < steps.SlicesPerChunk(); ++s) {
    const Range slice = ChunkSlice(chunk.count, step_elems, steps, s);
    ASSERT_LE(slice.count, step_elems * steps.slice_steps);
    if (slice.count == 0) continue;
    ASSERT_EQ(slice.offset, next);
    next += slice.count;
  }
  ASSERT_EQ(next, chunk.count);
}

TEST(ChunkingTest, RingAllReduceChunksAndSlicesTileTheBuffer) {
  for (Protocol proto : kProtocols) {
    const ChunkSteps steps = ChunkStepsFor(Func::kAllReduce, Algo::kRing, proto);
    for (uint64_t buffer : Buffers(proto)) {
      for (int elem : {1, 2, 4, 8}) {
        const uint64_t chunk_count = ChunkCount(proto, buffer, steps.chunk_steps, elem);
        const uint64_t step_elems = StepDataBytes(proto, buffer) / elem;
        for (uint64_t count : kCounts) {
          for (int nranks : {1, 2, 3, 5, 8, 16, 17}) {
            for (int nchannels : {1, 2, 3, 8, 32}) {
              SCOPED_TRACE(::testing::Message() << "proto=" << int(proto) << " buffer=" << buffer << " elem=" << elem
                                                << " count=" << count << " n=" << nranks << " C=" << nchannels);
              uint64_t next = 0;
              for (int c = 0; c < nchannels; ++c) {
                const Range part = ChannelPart(count, elem, nchannels, c);
                const uint64_t loops = RingAllReduceLoops(part.count, nranks, chunk_count);
                for (uint64_t loop = 0; loop < loops; ++loop) {
                  for (int k = 0; k < nranks; ++k) {
                    const Range chunk = RingAllReduceChunk(part.count, nranks, chunk_count, elem, loop, k);
                    ASSERT_LE(chunk.count, chunk_count);
                    ASSERT_LE(chunk.offset + chunk.count, part.count);
                    if (chunk.count == 0) continue;
                    ASSERT_EQ(part.offset + chunk.offset, next) << "loop " << loop << " chunk " << k;
                    ASSERT_EQ((part.offset + chunk.offset) * elem % 16, 0u);
                    ASSERT_NO_FATAL_FAILURE(ExpectSlicesTile(chunk, step_elems, steps));
                    next += chunk.count;
                  }
                }
              }
              ASSERT_EQ(next, count);
            }
          }
        }
      }
    }
  }
}

TEST(ChunkingTest, OneChunkPerLoopTilesEveryBlock) {
  // Ring AllGather/ReduceScatter: every rank's block is split the same way.
  for (Protocol proto : kProtocols) {
    const ChunkSteps steps = ChunkStepsFor(Func::kAllGather, Algo::kRing, proto);
    for (uint64_t buffer : Buffers(proto)) {
      const uint64_t chunk_count = ChunkCount(proto, buffer, steps.chunk_steps, 4);
      for (uint64_t rank_count : kCounts) {
        for (int nranks : {1, 2, 5, 8}) {
          for (int nchannels : {1, 3, 8}) {
            SCOPED_TRACE(::testing::Message()
                         << "proto=" << int(proto) << " count=" << rank_count << " n=" << nranks << " C=" << nchannels);
            uint64_t next = 0;
            for (int block = 0; block < nranks; ++block) {
              for (int c = 0; c < nchannels; ++c) {
                const Range part = ChannelPart(rank_count, 4, nchannels, c);
                for (uint64_t loop = 0; loop < ChunkLoops(part.count, chunk_count); ++loop) {
                  const Range chunk = LoopChunk(part.count, chunk_count, loop);
                  ASSERT_GT(chunk.count, 0u);
                  ASSERT_LE(chunk.count, chunk_count);
                  ASSERT_EQ(BlockOffset(block, rank_count, part.offset + chunk.offset), next);
                  next += chunk.count;
                }
              }
            }
            ASSERT_EQ(next, rank_count * nranks);
          }
        }
      }
    }
  }
}

// NCCL's Tree + LL128 rule (digest §5.5), worked by hand.
TEST(TreeLL128Chunk, HalvesUntilEachChannelHasEnoughChunks) {
  // 2 ranks on one host: nsteps 1.2, thresholds 38.4 and 9.6 chunks. The
  // GPU tree's 120 KiB chunk is below 128 KiB, so only the second rule
  // applies: 1 MiB on 16 channels halves twice, to 30 KiB.
  EXPECT_EQ(TreeLL128ChunkBytes(1 << 20, 16, 2, 1, 122880), 30720u);
  // Enough chunks per channel (1 GiB / (16 x 120 KiB) = 546): unchanged.
  EXPECT_EQ(TreeLL128ChunkBytes(uint64_t{1} << 30, 16, 2, 1, 122880), 122880u);
  // NCCL's own 562.5 KiB chunk, 8 ranks on one host, 8 channels: nsteps
  // 1.8, thresholds 14.4 and 3.6; 64 MiB has 14 chunks a channel, so one
  // halving (29 chunks), and the second rule does not fire.
  EXPECT_EQ(TreeLL128ChunkBytes(64 << 20, 8, 8, 1, 576000), 288000u);
  // 16 ranks on 2 hosts: ppn 8, nsteps 2.8, thresholds 22.4 and 5.6; a tiny
  // call halves to 72000 B by the first rule (the first size not above
  // 128 KiB), then to 18000 B (the first not above 32 KiB).
  EXPECT_EQ(TreeLL128ChunkBytes(4096, 8, 16, 2, 576000), 18000u);
  // Never below the floors it halves from.
  EXPECT_GE(TreeLL128ChunkBytes(1, 128, 2, 1, 32768), 32768u);
}

}  // namespace
}  // namespace gpurun::coll
