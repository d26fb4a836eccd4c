// Builds the pure pattern and wire-format headers with nvcc, so CI proves they
// are device-compatible (GR_HOST_DEVICE functions, inline PTX). The kernels
// are real uses, shaped like the primitives that come later, and meant for the
// GPU tests (tests/gpu) to launch; nothing runs them in a CPU-only build.
//
//   FillLLFifo      one ring-AllReduce transfer into an LL FIFO slot
//   DrainLLFifo     the receiving side: poll lines, copy out, release the slot
//   FillLL128Fifo   LL128 lines stored by 8-lane groups, flag in lane 7
//   PostSimpleStep  a Simple step: bulk copy, then release the tail counter
//   BuildPatterns   ring and double-tree links of every rank, for comparison
//                   with the host (ring.h, double_binary_tree.h)
#include <cstdint>

#include "coll/patterns/channel_split.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/double_binary_tree.h"
#include "coll/patterns/ring.h"
#include "coll/patterns/ring_schedule.h"
#include "coll/patterns/step_counts.h"
#include "coll/wire_format.h"

namespace gpurun::coll::device_check {

namespace {

// The LL FIFO slot of `step` on channel `channel`; each channel owns one FIFO
// of `buffer_bytes` in `fifos`.
__device__ LLLine* LLSlot(LLLine* fifos, int channel, uint64_t buffer_bytes, uint64_t step) {
  const uint64_t fifo_lines = buffer_bytes / sizeof(LLLine);
  return fifos + channel * fifo_lines + SlotOffset(step, buffer_bytes) / sizeof(LLLine);
}

// Chunk `chunk` of loop 0 of this block's channel part (part-relative), with
// 8-byte elements and one LL step per chunk.
__device__ Range LLChunk(uint64_t count, int nranks, int chunk, uint64_t buffer_bytes, Range* part) {
  *part = ChannelPart(count, sizeof(uint64_t), gridDim.x, blockIdx.x);
  const ChunkSteps steps = ChunkStepsFor(Func::kAllReduce, Algo::kRing, Protocol::kLL);
  const uint64_t chunk_count = ChunkCount(Protocol::kLL, buffer_bytes, steps.chunk_steps, sizeof(uint64_t));
  return RingAllReduceChunk(part->count, nranks, chunk_count, sizeof(uint64_t), 0, chunk);
}

}  // namespace

// One block per channel. Each 8-byte element travels in one LL line.
__global__ void FillLLFifo(const uint64_t* src, uint64_t count, int nranks, int index, int t, uint64_t step,
                           uint64_t buffer_bytes, LLLine* fifos) {
  Range part;
  const Range chunk = LLChunk(count, nranks, RingAllReduceSendChunk(index, nranks, t), buffer_bytes, &part);
  LLLine* slot = LLSlot(fifos, blockIdx.x, buffer_bytes, step);
  const uint32_t flag = LLFlag(step);
  for (uint64_t i = threadIdx.x; i < chunk.count; i += blockDim.x) {
    slot[i].write(src[part.offset + chunk.offset + i], flag);
  }
  if (LLNeedsClean(step)) {
    const uint64_t lines = StepLines(Protocol::kLL, buffer_bytes);
    for (uint64_t i = chunk.count + threadIdx.x; i < lines; i += blockDim.x) slot[i].write(0, flag);
  }
}

// The receiving side of FillLLFifo at ring position `index`: polls every line
// of the chunk its prev sent, copies the data out, then releases the slot
// through the head counter its prev polls. Gives up when *abort_flag is set.
__global__ void DrainLLFifo(uint64_t count, int nranks, int index, int t, uint64_t step, uint64_t buffer_bytes,
                            const uint32_t* abort_flag, LLLine* fifos, StepCounter* heads, uint64_t* dst) {
  Range part;
  const Range chunk = LLChunk(count, nranks, RingAllReduceRecvChunk(index, nranks, t), buffer_bytes, &part);
  LLLine* slot = LLSlot(fifos, blockIdx.x, buffer_bytes, step);
  const uint32_t flag = LLFlag(step);
  for (uint64_t i = threadIdx.x; i < chunk.count; i += blockDim.x) {
    uint64_t value = 0;
    while (!slot[i].read(flag, &value)) {
      if (*static_cast<const volatile uint32_t*>(abort_flag) != 0) return;
    }
    dst[part.offset + chunk.offset + i] = value;
  }
  __syncthreads();
  if (threadIdx.x == 0 && heads[blockIdx.x].load() <= step) heads[blockIdx.x].post(step + 1);
}

// LL128: 8 lanes per line, 15 data words per line from `src`; blockDim.x is
// a multiple of 8.
__global__ void FillLL128Fifo(const uint64_t* src, uint64_t nlines, uint64_t step, LL128Line* slot) {
  const int lane = threadIdx.x % kLL128LanesPerLine;
  const uint64_t group = (blockIdx.x * uint64_t{blockDim.x} + threadIdx.x) / kLL128LanesPerLine;
  const uint64_t ngroups = gridDim.x * uint64_t{blockDim.x} / kLL128LanesPerLine;
  for (uint64_t line = group; line < nlines; line += ngroups) {
    const uint64_t* data = src + line * kLL128DataWords;
    const int w = LL128LaneWord(lane);
    const uint64_t second = lane == kLL128FlagLane ? LL128Flag(step) : data[w + 1];
    slot[line].writeLane(lane, data[w], second);
  }
}

// Simple: the block copies `bytes` (a multiple of 16) into the step's slot,
// then one thread publishes the step.
__global__ void PostSimpleStep(const uint4* src, uint64_t bytes, uint64_t step, uint64_t buffer_bytes, uint4* fifo,
                               StepCounter* tail) {
  uint4* slot = fifo + SlotOffset(step, buffer_bytes) / sizeof(uint4);
  const uint64_t n = Min(bytes, StepDataBytes(Protocol::kSimple, buffer_bytes)) / sizeof(uint4);
  for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) slot[i] = src[i];
  __syncthreads();
  if (threadIdx.x == 0) tail->post(step + 1);
}

// Per rank r: ring prev/next/index from `order`, and parent, children and
// depth in both trees. Layout per rank: 3 ring ints, then per tree 4 ints.
__global__ void BuildPatterns(const int* order, int nranks, int* out) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= nranks) return;
  int* row = out + r * (3 + 4 * kNumDoubleTrees);
  const RingLinks ring = RingLinksOf(order, nranks, r);
  row[0] = ring.prev;
  row[1] = ring.next;
  row[2] = ring.index;
  for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
    const TreeLinks links = DoubleTreeLinks(nranks, r, tree);
    int* t = row + 3 + 4 * tree;
    t[0] = links.parent;
    t[1] = links.children[0];
    t[2] = links.children[1];
    t[3] = TreeRankDepth(nranks, r, tree);
  }
  if (r == 0) out[nranks * (3 + 4 * kNumDoubleTrees)] = AlgorithmSteps(Func::kAllReduce, Algo::kRing, nranks);
}

}  // namespace gpurun::coll::device_check
