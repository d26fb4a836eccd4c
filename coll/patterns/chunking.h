// Chunks, slices and FIFO steps within one channel's part of a collective
// (channel_split.h gives the part). Follows NCCL 2.22+ (digest §5.5, §6.6,
// §7; src/device/all_reduce.h, prims_simple.h, enqueue.cc calcCollChunking):
//
//  chunk   what one primitive call (send, recvReduceSend, ...) moves over
//          one connection: chunk_steps FIFO steps' worth of data. Sized on
//          the host from the FIFO step: ChunkBytes.
//  loop    one round of the algorithm over its chunks. Ring AllReduce: a
//          loop covers nranks adjacent chunks of the part, and the last,
//          partial loop shrinks its chunks to ceil(rem / nranks) rounded up
//          to 16 bytes (RingAllReduceChunk). Everything else (ring
//          AllGather/ReduceScatter within each rank's block, broadcast,
//          reduce, trees) moves one chunk per loop (LoopChunk).
//  slice   Simple splits a chunk into chunk_steps / slice_steps slices of
//          slice_steps steps each (ChunkSlice); LL and LL128 move a chunk in
//          one step. Every call consumes chunk_steps steps, empty slices
//          included, so step numbers follow from the call count (SliceStep).
//
// All counts and offsets are in elements; offsets are relative to the start
// of the channel's part unless said otherwise.
#ifndef GPURUN_COLL_PATTERNS_CHUNKING_H_
#define GPURUN_COLL_PATTERNS_CHUNKING_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/device_compat.h"
#include "coll/int_math.h"
#include "coll/patterns/channel_split.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

// Steps per chunk and per slice (NCCL collectives.h): only Ring + Simple
// pipelines a chunk over several steps, AllReduce/AllGather/ReduceScatter with
// NCCL_STEPS/2 = 4 steps per chunk in slices of NCCL_STEPS/4 = 2; broadcast
// and reduce use 1/1, as does every other (algorithm, protocol) pair.
struct ChunkSteps {
  int chunk_steps = 1;
  int slice_steps = 1;

  GR_HOST_DEVICE constexpr int SlicesPerChunk() const { return chunk_steps / slice_steps; }
};

GR_HOST_DEVICE constexpr ChunkSteps ChunkStepsFor(Func func, Algo algo, Protocol proto) {
  if (algo != Algo::kRing || proto != Protocol::kSimple) return ChunkSteps{1, 1};
  if (func == Func::kBroadcast || func == Func::kReduce) return ChunkSteps{1, 1};
  return ChunkSteps{kFifoSteps / 2, kFifoSteps / 4};
}

// Work-descriptor granularity of chunk sizes (NCCL ncclProtoGrainSize): LL
// one line's 16 bytes, LL128 a warp's 4 lines of data (32 lanes x 8 words /
// 16 x 15 x 8 B = 1920), Simple 512.
GR_HOST_DEVICE constexpr uint64_t GrainBytes(Protocol proto) {
  switch (proto) {
    case Protocol::kLL: return 16;
    case Protocol::kLL128: return 1920;
    default: return 512;
  }
}

// Data bytes of one chunk (digest §5.5 host conversion): the FIFO step times
// chunk_steps, halved for LL and times 15/16 for LL128 (what chunk_steps
// steps carry), rounded down to whole grains. Defaults: LL 32768, LL128
// 576000, Simple 524288 per step (2 MiB for ring AllReduce). 0 means the FIFO
// is too small for the protocol (a step below one grain); the planner must
// reject such a buffer size before dividing by it.
GR_HOST_DEVICE constexpr uint64_t ChunkBytes(Protocol proto, uint64_t buffer_bytes, int chunk_steps) {
  uint64_t bytes = StepBytes(buffer_bytes) * static_cast<uint64_t>(chunk_steps);
  if (proto == Protocol::kLL) bytes /= 2;
  if (proto == Protocol::kLL128) bytes = bytes / 16 * 15;
  return bytes / GrainBytes(proto) * GrainBytes(proto);
}

// NCCL's Tree + LL128 chunk adaptation (enqueue.cc, digest §5.5): a tree
// allreduce over LL128 halves its chunk while each channel would get too few
// chunks to keep the tree's pipeline busy. With ppn = nranks / nnodes and
// nsteps = 1 + log2(nnodes) + 0.1 ppn: halve while bytes / (nchannels x
// chunk) < nsteps x 64 / ppn and the chunk is above 128 KiB, then while it
// is < nsteps x 16 / ppn and the chunk is above 32 KiB. `bytes` is the
// call's (NCCL's nBytes), `chunk_bytes` the FIFO's LL128 chunk; the result
// is not rounded to the grain.
GR_HOST_DEVICE constexpr uint64_t TreeLL128ChunkBytes(uint64_t bytes, int nchannels, int nranks, int nnodes,
                                                      uint64_t chunk_bytes) {
  const double ppn = static_cast<double>(nranks) / static_cast<double>(nnodes < 1 ? 1 : nnodes);
  int log2_nodes = 0;
  for (int n = nnodes; n > 1; n >>= 1) ++log2_nodes;
  const double nsteps = 1 + log2_nodes + 0.1 * ppn;
  const auto channels = static_cast<uint64_t>(nchannels < 1 ? 1 : nchannels);
  uint64_t chunk = chunk_bytes;
  while (chunk > 131072 && static_cast<double>(bytes / (channels * chunk)) < nsteps * 64 / ppn) chunk /= 2;
  while (chunk > 32768 && static_cast<double>(bytes / (channels * chunk)) < nsteps * 16 / ppn) chunk /= 2;
  return chunk;
}

// The same in elements (elem_size in {1, 2, 4, 8, 16} divides every grain).
GR_HOST_DEVICE constexpr uint64_t ChunkCount(Protocol proto, uint64_t buffer_bytes, int chunk_steps, int elem_size) {
  return ChunkBytes(proto, buffer_bytes, chunk_steps) / static_cast<uint64_t>(elem_size);
}

// ---- Ring AllReduce: nranks chunks per loop ----

GR_HOST_DEVICE constexpr uint64_t RingAllReduceLoops(uint64_t part_count, int nranks, uint64_t chunk_count) {
  return DivUp(part_count, static_cast<uint64_t>(nranks) * chunk_count);
}

// Chunk `chunk` (0..nranks-1) of loop `loop`. In the last loop the chunk size
// is ceil(rem / nranks) aligned up to 16 bytes, so trailing chunks may be
// short or empty (an empty chunk sits at the end of the part). Precondition:
// chunk_count is a multiple of 16 / elem_size (ChunkCount guarantees it).
GR_HOST_DEVICE constexpr Range RingAllReduceChunk(uint64_t part_count, int nranks, uint64_t chunk_count, int elem_size,
                                                  uint64_t loop, int chunk) {
  const uint64_t loop_count = static_cast<uint64_t>(nranks) * chunk_count;
  const uint64_t loop_offset = loop * loop_count;
  const uint64_t rem = part_count - loop_offset;
  uint64_t size = chunk_count;
  if (rem < loop_count) size = AlignUp(DivUp(rem, static_cast<uint64_t>(nranks)), 16 / elem_size);
  const uint64_t begin = Min(rem, static_cast<uint64_t>(chunk) * size);
  return Range{loop_offset + begin, Min(size, rem - begin)};
}

// ---- One chunk per loop (AllGather / ReduceScatter blocks, chains, trees) ----

GR_HOST_DEVICE constexpr uint64_t ChunkLoops(uint64_t part_count, uint64_t chunk_count) {
  return DivUp(part_count, chunk_count);
}

GR_HOST_DEVICE constexpr Range LoopChunk(uint64_t part_count, uint64_t chunk_count, uint64_t loop) {
  const uint64_t begin = loop * chunk_count;
  return Range{begin, Min(chunk_count, part_count - begin)};
}

// Ring AllGather / ReduceScatter: where in the full buffer (nranks blocks of
// `rank_count` elements) a piece at `offset_in_block` of block `block` lies.
GR_HOST_DEVICE constexpr uint64_t BlockOffset(int block, uint64_t rank_count, uint64_t offset_in_block) {
  return static_cast<uint64_t>(block) * rank_count + offset_in_block;
}

// ---- Slices and steps ----

// Slice `slice` (0..SlicesPerChunk()-1) of a chunk of `chunk_elems` elements,
// relative to the chunk, where a FIFO step holds `step_elems` elements (NCCL
// genericOp: sliceSize = max(ceil(n / (16 * slicesPerChunk)) * 16,
// stepSize * slice_steps / 32)). Slices past the data are empty but still
// consume their steps.
GR_HOST_DEVICE constexpr Range ChunkSlice(uint64_t chunk_elems, uint64_t step_elems, ChunkSteps steps, int slice) {
  const auto per_chunk = static_cast<uint64_t>(steps.SlicesPerChunk());
  const uint64_t slice_size =
      Max(DivUp(chunk_elems, 16 * per_chunk) * 16, step_elems * static_cast<uint64_t>(steps.slice_steps) / 32);
  const uint64_t begin = Min(chunk_elems, static_cast<uint64_t>(slice) * slice_size);
  return Range{begin, Min(slice_size, chunk_elems - begin)};
}

// FIFO step at which slice `slice` of the connection's `call`-th primitive
// call (0-based) starts; the slice occupies slice_steps steps from there.
GR_HOST_DEVICE constexpr uint64_t SliceStep(uint64_t call, int slice, ChunkSteps steps) {
  return call * static_cast<uint64_t>(steps.chunk_steps) + static_cast<uint64_t>(slice * steps.slice_steps);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_CHUNKING_H_
