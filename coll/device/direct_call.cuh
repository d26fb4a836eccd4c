// The start and end of a direct allreduce launch (one-shot, two-shot;
// oneshot_launch.h): every block finds its call (the launch's calls own
// consecutive ranges of blocks) and reads the region's call counter, which
// with the call's index gives the call's number, flag and scratch parity;
// the last block to finish advances the counter past the launch's calls,
// so a CUDA graph replays with fresh flags.
#ifndef GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_
#define GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_

#include <cstdint>

#include "coll/device/oneshot_launch.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

struct DirectCall {
  const uint8_t* send;
  uint8_t* recv;
  uint64_t bytes;
  uint64_t base;         // the region's call number of the launch's first call
  uint64_t number;       // the region's call number of this call
  uint32_t flag;         // OneShotFlag(number)
  uint64_t parity_base;  // the first slot of the call's parity: parity * nranks
  uint64_t first;        // this thread's first line: its index among the call's threads
  uint64_t stride;       // the call's threads
};

// Every thread of the block calls it.
__device__ __forceinline__ DirectCall BeginDirectCall(const DevOneShotLaunch& l) {
  __shared__ uint64_t base_shared;
  if (threadIdx.x == 0) base_shared = *reinterpret_cast<volatile uint64_t*>(l.call_counter);
  __syncthreads();
  int k = 0;
  while (k + 1 < l.ncalls && blockIdx.x >= l.call[k + 1].first_block) ++k;
  const DevDirectCallArgs& a = l.call[k];
  DirectCall c;
  c.send = static_cast<const uint8_t*>(a.send);
  c.recv = static_cast<uint8_t*>(a.recv);
  c.bytes = a.bytes;
  c.base = base_shared;
  c.number = c.base + static_cast<uint64_t>(k);
  c.flag = OneShotFlag(c.number);
  c.parity_base = static_cast<uint64_t>(OneShotParity(c.number, l.parities)) * static_cast<uint64_t>(l.nranks);
  c.first = static_cast<uint64_t>(blockIdx.x - a.first_block) * blockDim.x + threadIdx.x;
  c.stride = static_cast<uint64_t>(a.nblocks) * blockDim.x;
  return c;
}

// Every thread of the block calls it, after its last access of the call.
__device__ __forceinline__ void EndDirectCall(const DevOneShotLaunch& l, const DirectCall& c) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(l.blocks_done, 1u) == gridDim.x - 1) {
      *l.blocks_done = 0;
      *l.call_counter = c.base + static_cast<uint64_t>(l.ncalls);
    }
  }
}

// Slot `sender` of the call's parity in a scratch region, as LL lines.
__device__ __forceinline__ LLLine* DirectSlot(uint8_t* scratch, const DevOneShotLaunch& l, const DirectCall& c,
                                              int sender) {
  return reinterpret_cast<LLLine*>(scratch + (c.parity_base + static_cast<uint64_t>(sender)) * l.slot_bytes);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_DIRECT_CALL_CUH_
