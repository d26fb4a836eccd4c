// The start and end of a direct allreduce launch (one-shot, two-shot;
// oneshot_launch.h): every block reads the rank's call number, which gives
// the call's flag and scratch parity; the last block to finish advances it
// for the next launch, so a CUDA graph replays with fresh flags.
#ifndef GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_
#define GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_

#include <cstdint>

#include "coll/device/oneshot_launch.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

struct DirectCall {
  uint64_t number;       // this rank's call count before the call
  uint32_t flag;         // OneShotFlag(number)
  uint64_t parity_base;  // the first slot of the call's parity: parity * nranks
};

// Every thread of the block calls it.
__device__ __forceinline__ DirectCall BeginDirectCall(const DevOneShotLaunch& l) {
  __shared__ uint64_t call_shared;
  if (threadIdx.x == 0) call_shared = *reinterpret_cast<volatile uint64_t*>(l.calls);
  __syncthreads();
  DirectCall c;
  c.number = call_shared;
  c.flag = OneShotFlag(c.number);
  c.parity_base = static_cast<uint64_t>(OneShotParity(c.number)) * static_cast<uint64_t>(l.nranks);
  return c;
}

// Every thread of the block calls it, after its last access of the call.
__device__ __forceinline__ void EndDirectCall(const DevOneShotLaunch& l, const DirectCall& c) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(l.blocks_done, 1u) == gridDim.x - 1) {
      *l.blocks_done = 0;
      *l.calls = c.number + 1;
    }
  }
}

// Slot `sender` of the call's parity in a scratch buffer, as LL lines.
__device__ __forceinline__ LLLine* DirectSlot(uint8_t* scratch, const DevOneShotLaunch& l, const DirectCall& c,
                                              int sender) {
  return reinterpret_cast<LLLine*>(scratch + (c.parity_base + static_cast<uint64_t>(sender)) * l.slot_bytes);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_
