// Data-flow patterns of the (function, algorithm) pairs and the step counts
// that follow from them (NCCL enqueue.cc getPatternInfo / getLoopInfo /
// calcCollChunking; digest §4.4, §5.5, §7).
//
// Two different counts:
//  - AlgorithmSteps: transfers on the critical path of one chunk, what the
//    cost model multiplies latencies by. Ring AllReduce 2(n-1) (n-1 of
//    reduce-scatter, then n-1 of all-gather); ring AllGather/ReduceScatter
//    n-1; broadcast/reduce along a pipelined chain n-1; tree reduce or
//    broadcast the tree depth, tree AllReduce twice that.
//  - LoopShape / ConnectionSteps: per loop, how many chunk transfers each
//    connection carries and how many chunks of data the loop covers; from
//    them the FIFO steps a connection (or a proxy) moves for a whole call.
#ifndef GPURUN_COLL_PATTERNS_STEP_COUNTS_H_
#define GPURUN_COLL_PATTERNS_STEP_COUNTS_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

// NCCL's ncclPattern_t values for ring and tree.
enum class Pattern : uint8_t {
  kRing,          // AllGather, ReduceScatter
  kRingTwice,     // ring AllReduce: reduce-scatter, then all-gather
  kPipelineFrom,  // ring Broadcast: a chain from the root
  kPipelineTo,    // ring Reduce: a chain into the root
  kTreeUp,        // tree Reduce
  kTreeDown,      // tree Broadcast
  kTreeUpDown,    // tree AllReduce: reduce up, then broadcast down
};

GR_HOST_DEVICE constexpr Pattern PatternOf(Func func, Algo algo) {
  const bool tree = algo == Algo::kTree;
  switch (func) {
    case Func::kBroadcast: return tree ? Pattern::kTreeDown : Pattern::kPipelineFrom;
    case Func::kReduce: return tree ? Pattern::kTreeUp : Pattern::kPipelineTo;
    case Func::kAllGather:
    case Func::kReduceScatter: return Pattern::kRing;
    default: return tree ? Pattern::kTreeUpDown : Pattern::kRingTwice;
  }
}

// Transfers on one chunk's critical path; `tree_depth` (double_binary_tree.h
// TreeDepth) is used by the tree patterns only. 0 with one rank.
GR_HOST_DEVICE constexpr int AlgorithmSteps(Pattern pattern, int nranks, int tree_depth = 0) {
  if (nranks <= 1) return 0;
  switch (pattern) {
    case Pattern::kRingTwice: return 2 * (nranks - 1);
    case Pattern::kRing:
    case Pattern::kPipelineFrom:
    case Pattern::kPipelineTo: return nranks - 1;
    case Pattern::kTreeUp:
    case Pattern::kTreeDown: return tree_depth;
    default: return 2 * tree_depth;
  }
}

GR_HOST_DEVICE constexpr int AlgorithmSteps(Func func, Algo algo, int nranks, int tree_depth = 0) {
  return AlgorithmSteps(PatternOf(func, algo), nranks, tree_depth);
}

// Per loop: chunk transfers on each connection (NCCL nstepsPerLoop) and chunks
// of data the loop covers (nchunksPerLoop).
struct LoopShape {
  int steps_per_loop = 1;
  int chunks_per_loop = 1;
};

GR_HOST_DEVICE constexpr LoopShape LoopShapeOf(Pattern pattern, int nranks) {
  switch (pattern) {
    case Pattern::kRing: return LoopShape{nranks - 1, nranks};
    case Pattern::kRingTwice: return LoopShape{2 * (nranks - 1), nranks};
    default: return LoopShape{1, 1};
  }
}

// Loops needed for `bytes` spread over `nchannels` channels with chunks of
// `chunk_bytes` (NCCL: nLoops = DIVUP(nBytes, nChannels*nchunksPerLoop*chunkSize)).
GR_HOST_DEVICE constexpr uint64_t LoopsFor(Pattern pattern, int nranks, uint64_t bytes, int nchannels,
                                           uint64_t chunk_bytes) {
  const LoopShape shape = LoopShapeOf(pattern, nranks);
  return DivUp(bytes, static_cast<uint64_t>(nchannels) * static_cast<uint64_t>(shape.chunks_per_loop) * chunk_bytes);
}

// FIFO steps one connection moves for the call (NCCL proxyOp->nsteps =
// nstepsPerLoop * nLoops * chunkSteps).
GR_HOST_DEVICE constexpr uint64_t ConnectionSteps(Pattern pattern, int nranks, uint64_t bytes, int nchannels,
                                                  uint64_t chunk_bytes, int chunk_steps) {
  const LoopShape shape = LoopShapeOf(pattern, nranks);
  return static_cast<uint64_t>(shape.steps_per_loop) * LoopsFor(pattern, nranks, bytes, nchannels, chunk_bytes) *
         static_cast<uint64_t>(chunk_steps);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_STEP_COUNTS_H_
