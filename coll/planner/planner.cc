// PlanCollective (planner.h): channel split, chunk size and loop count per work.
#include "coll/planner/planner.h"

#include <string>

#include "coll/patterns/channel_split.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/double_binary_tree.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

bool HostAlgoExists(Func func, Algo algo) {
  if (algo == Algo::kRing) return true;
  if (HostRunsAsMessages(func, algo)) return true;
  return (algo == Algo::kTree || algo == Algo::kOneShot) && func == Func::kAllReduce;
}

ChunkSteps PlanSteps(const PlanInput& in) {
  const uint64_t bytes = in.count * static_cast<uint64_t>(ElemSize(in.type));
  if (in.net && in.algo == Algo::kRing && in.proto == Protocol::kSimple && bytes < kNetOneStepMaxBytes) {
    return ChunkSteps{1, 1};
  }
  return ChunkStepsFor(in.func, in.algo, in.proto);
}

namespace {

WorkDesc BaseWork(const PlanInput& in, int channel, Range part) {
  const ChunkSteps steps = PlanSteps(in);
  const int elem = ElemSize(in.type);
  WorkDesc w{};
  w.func = in.func;
  w.algo = in.algo;
  w.proto = in.proto;
  w.type = in.type;
  w.op = in.op;
  w.tree = 0;
  w.channel = static_cast<uint16_t>(channel);
  w.nranks = in.nranks;
  w.ring_index = in.ring_index;
  w.root = in.root_index;
  w.chunk_steps = steps.chunk_steps;
  w.slice_steps = steps.slice_steps;
  w.elem_size = elem;
  w.count = in.count;
  w.part_offset = part.offset;
  w.part_count = part.count;
  w.chunk_count = ChunkCount(in.proto, in.buffer_bytes, steps.chunk_steps, elem);
  if (in.max_chunk_bytes != 0) {
    const uint64_t grain = GrainBytes(in.proto);
    const uint64_t cap = Max(grain, in.max_chunk_bytes / grain * grain) / static_cast<uint64_t>(elem);
    w.chunk_count = Min(w.chunk_count, cap);
  }
  // NCCL's Tree + LL128 chunk rule (chunking.h), from 3 ranks: with two the
  // tree is one hop each way, nothing to pipeline, and smaller chunks only
  // cost (2 x H200, run 19 of 2026-11-30: 2 MiB forced tree/LL128 took
  // 35.4 us with the rule against 29.3 without, run 16).
  if (in.algo == Algo::kTree && in.proto == Protocol::kLL128 && in.nranks > 2) {
    const uint64_t grain = GrainBytes(in.proto);
    const uint64_t bytes = TreeLL128ChunkBytes(in.count * static_cast<uint64_t>(elem), in.nchannels, in.nranks,
                                               in.nnodes, w.chunk_count * static_cast<uint64_t>(elem));
    w.chunk_count = Min(w.chunk_count, Max(grain, bytes / grain * grain) / static_cast<uint64_t>(elem));
  }
  w.step_elems = StepDataBytes(in.proto, in.buffer_bytes) / static_cast<uint64_t>(elem);
  if (in.func == Func::kAllReduce && in.algo == Algo::kRing) {
    w.loops = RingAllReduceLoops(part.count, in.nranks, w.chunk_count);
  } else {
    w.loops = ChunkLoops(part.count, w.chunk_count);
  }
  return w;
}

}  // namespace

StatusOr<int> PlanCollective(const PlanInput& in, std::span<WorkDesc> out) {
  if (!HostAlgoExists(in.func, in.algo)) {
    return InvalidUsage(std::string("the host collective engine has no ") + AlgoName(in.algo) + " " +
                        FuncName(in.func));
  }
  if (HostRunsAsMessages(in.func, in.algo)) {
    return InvalidUsage(std::string("the host collective engine runs ") + AlgoName(in.algo) + " " + FuncName(in.func) +
                        " as point-to-point messages: it has no works to plan");
  }
  if (in.nchannels < 1 || in.nchannels > in.max_channels) {
    return InvalidArgument("channel count " + std::to_string(in.nchannels) + " is outside 1.." +
                           std::to_string(in.max_channels));
  }
  if (in.nranks < 1 || in.ring_index < 0 || in.ring_index >= in.nranks || in.root_index < 0 ||
      in.root_index >= in.nranks) {
    return InvalidArgument("ring position " + std::to_string(in.ring_index) + " or root " +
                           std::to_string(in.root_index) + " is outside 0.." + std::to_string(in.nranks - 1));
  }
  const ChunkSteps steps = PlanSteps(in);
  if (!IsValidBufferBytes(in.proto, in.buffer_bytes) || ChunkBytes(in.proto, in.buffer_bytes, steps.chunk_steps) == 0) {
    return InvalidArgument(std::string("a FIFO of ") + std::to_string(in.buffer_bytes) + " bytes is too small for " +
                           ProtocolName(in.proto));
  }
  if (out.size() < static_cast<size_t>(2 * in.max_channels)) return InvalidArgument("plan output array too small");
  const int elem = ElemSize(in.type);
  int n = 0;
  for (int c = 0; c < in.nchannels; ++c) {
    const Range part = ChannelPart(in.count, elem, in.nchannels, c);
    if (part.count == 0) continue;
    if (in.algo != Algo::kTree) {
      out[n++] = BaseWork(in, c, part);
      continue;
    }
    // Tree: the first half (rounded up to 16 bytes) on tree 0, the rest on tree 1.
    const uint64_t half = Min(part.count, AlignUp(DivUp(part.count, 2), 16 / static_cast<uint64_t>(elem)));
    const Range halves[kNumDoubleTrees] = {{part.offset, half}, {part.offset + half, part.count - half}};
    for (int t = 0; t < kNumDoubleTrees; ++t) {
      if (halves[t].count == 0) continue;
      WorkDesc w = BaseWork(in, c, halves[t]);
      w.tree = static_cast<uint8_t>(t);
      out[n++] = w;
    }
  }
  return n;
}

}  // namespace gpurun::coll
