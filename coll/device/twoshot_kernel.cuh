// The two-shot allreduce kernel, for one (element type, operator) pair;
// ring_kernels.cu.in instantiates it per type. It shares the one-shot
// kernel's launch record, the large scratch region, its call counter and
// the flags (oneshot_launch.h), one call a launch, and cuts the call into
// one part per rank (twoshot_layout.h):
//   1. scatter: each rank pushes its input's line i, for every line of
//      another rank's part, into its own slot of that owner's scratch;
//   2. reduce: each rank reduces its part's lines of every rank, in rank
//      order (so every rank's result has the same bits), stores them and
//      pushes them into its own slot of every peer's scratch;
//   3. gather: each rank stores the other parts as their owners' lines
//      arrive.
// In a rank's slot of a peer's scratch, step 1 writes the lines of the
// peer's part and step 3 those of this rank's part: no line is written
// twice in a call. Each rank moves 2 (n - 1) / n of the input, against the
// one-shot's n - 1, and reduces 1 / n of it. Threads own lines i = global
// thread index + k * total threads in each step; every wait is the bounded
// poll of sync.cuh and names the peer.
#ifndef GPURUN_COLL_DEVICE_TWOSHOT_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_TWOSHOT_KERNEL_CUH_

#include "coll/device/direct_call.cuh"
#include "coll/device/ll_words.cuh"
#include "coll/device/oneshot_launch.h"
#include "coll/device/sync.cuh"
#include "coll/device/twoshot_layout.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

namespace twoshot {

// Step 2 for lines [begin, end) of this rank's part; false when a wait failed.
template <DataType D, typename Op>
__device__ __forceinline__ bool ReducePart(const DevOneShotLaunch& l, const DirectCall& call, uint64_t begin,
                                           uint64_t end, uint64_t first, uint64_t stride) {
  const uint8_t* send = call.send;
  uint8_t* recv = call.recv;
  for (uint64_t i = begin + first; i < end; i += stride) {
    const uint64_t n = min(kOneShotLineData, call.bytes - i * kOneShotLineData);
    uint64_t acc = 0;
    for (int r = 0; r < l.nranks; ++r) {
      uint64_t v;
      if (r == l.rank) {
        v = LoadChunk(send + i * kOneShotLineData, n);
      } else if (!WaitLLLine(l, DirectSlot(const_cast<uint8_t*>(l.scratch), l, call, r) + i, call.flag,
                             WaitWhat{kDirectWaitChannel, kTwoShotWaitInput, static_cast<uint32_t>(r)}, &v)) {
        return false;
      }
      acc = r == 0 ? v : CombineWord<D, Op>(acc, v);
    }
    if (l.divisor != 0) acc = DivideWord<D>(acc, l.divisor);
    StoreChunk(recv + i * kOneShotLineData, acc, n);
    for (int r = 0; r < l.nranks; ++r) {
      if (r != l.rank) DirectSlot(l.peer_scratch[r], l, call, l.rank)[i].write(acc, call.flag);
    }
  }
  return true;
}

// Step 3 for every line outside this rank's part; false when a wait failed.
__device__ __forceinline__ bool GatherParts(const DevOneShotLaunch& l, const DirectCall& call, uint64_t lines,
                                            uint64_t first, uint64_t stride) {
  uint8_t* recv = call.recv;
  for (uint64_t i = first; i < lines; i += stride) {
    const int owner = TwoShotOwner(i, lines, l.nranks);
    if (owner == l.rank) continue;
    const uint64_t n = min(kOneShotLineData, call.bytes - i * kOneShotLineData);
    uint64_t v;
    if (!WaitLLLine(l, DirectSlot(const_cast<uint8_t*>(l.scratch), l, call, owner) + i, call.flag,
                    WaitWhat{kDirectWaitChannel, kTwoShotWaitReduced, static_cast<uint32_t>(owner)}, &v)) {
      return false;
    }
    StoreChunk(recv + i * kOneShotLineData, v, n);
  }
  return true;
}

// The tokens of empty parts (twoshot_layout.h): thread 0 of the grid sends
// this rank's and waits for the others'.
__device__ __forceinline__ void SendToken(const DevOneShotLaunch& l, const DirectCall& call, uint64_t lines) {
  const uint64_t at = TwoShotTokenLine(lines, l.nranks, l.rank);
  for (int r = 0; r < l.nranks; ++r) {
    if (r != l.rank) DirectSlot(l.peer_scratch[r], l, call, l.rank)[at].write(0, call.flag);
  }
}

__device__ __forceinline__ bool AwaitTokens(const DevOneShotLaunch& l, const DirectCall& call, uint64_t lines) {
  for (int owner = 0; owner < l.nranks; ++owner) {
    uint64_t begin, end;
    TwoShotPart(lines, l.nranks, owner, &begin, &end);
    if (owner == l.rank || begin < end) continue;
    uint64_t v;
    const uint64_t at = TwoShotTokenLine(lines, l.nranks, owner);
    if (!WaitLLLine(l, DirectSlot(const_cast<uint8_t*>(l.scratch), l, call, owner) + at, call.flag,
                    WaitWhat{kDirectWaitChannel, kTwoShotWaitReduced, static_cast<uint32_t>(owner)}, &v)) {
      return false;
    }
  }
  return true;
}

}  // namespace twoshot

template <DataType D, typename Op>
__global__ void __launch_bounds__(kOneShotThreads) TwoShotKernel(const __grid_constant__ DevOneShotLaunch l) {
  const DirectCall call = BeginDirectCall(l);
  const uint64_t lines = (call.bytes + kOneShotLineData - 1) / kOneShotLineData;
  const uint64_t first = call.first, stride = call.stride;  // one call a launch: the grid's
  const uint8_t* send = call.send;
  uint64_t begin, end;
  TwoShotPart(lines, l.nranks, l.rank, &begin, &end);

  // 1. Scatter: the lines of other ranks' parts to their owners.
  for (uint64_t i = first; i < lines; i += stride) {
    const int owner = TwoShotOwner(i, lines, l.nranks);
    if (owner == l.rank) continue;
    const uint64_t n = min(kOneShotLineData, call.bytes - i * kOneShotLineData);
    DirectSlot(l.peer_scratch[owner], l, call, l.rank)[i].write(LoadChunk(send + i * kOneShotLineData, n), call.flag);
  }
  if (first == 0 && begin >= end) twoshot::SendToken(l, call, lines);
  // 2 and 3; a failed wait is recorded (the host reports it), the rest of
  // the thread's lines are skipped.
  if (twoshot::ReducePart<D, Op>(l, call, begin, end, first, stride) &&
      twoshot::GatherParts(l, call, lines, first, stride) && first == 0) {
    (void)twoshot::AwaitTokens(l, call, lines);
  }
  EndDirectCall(l, call);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_TWOSHOT_KERNEL_CUH_
