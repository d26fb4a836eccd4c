// The one-shot allreduce kernel (oneshot_launch.h), for one (element type,
// operator) pair; ring_kernels.cu.in instantiates it per type. A launch
// runs one call or a batch of them (direct_call.cuh gives each block its
// call). Each thread owns lines i = its index among the call's threads +
// k * the call's threads: it pushes its own 8 bytes of line i to every
// peer, then reduces line i of every rank in rank order, waiting for each
// peer's line with the bounded poll of sync.cuh.
#ifndef GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_

#include "coll/device/direct_call.cuh"
#include "coll/device/ll_words.cuh"
#include "coll/device/oneshot_launch.h"
#include "coll/device/sync.cuh"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <DataType D, typename Op>
__global__ void __launch_bounds__(kOneShotThreads) OneShotKernel(const __grid_constant__ DevOneShotLaunch l) {
  const DirectCall call = BeginDirectCall(l);
  const uint64_t bytes = call.bytes, first = call.first, stride = call.stride;
  const uint64_t lines = (bytes + kOneShotLineData - 1) / kOneShotLineData;
  const uint8_t* send = call.send;
  uint8_t* recv = call.recv;

  // Push: this rank's line i into its slot of every peer.
  for (uint64_t i = first; i < lines; i += stride) {
    const uint64_t n = min(kOneShotLineData, bytes - i * kOneShotLineData);
    const uint64_t v = LoadChunk(send + i * kOneShotLineData, n);
    for (int r = 0; r < l.nranks; ++r) {
      if (r == l.rank) continue;
      DirectSlot(l.peer_scratch[r], l, call, l.rank)[i].write(v, call.flag);
    }
  }
  // Reduce: line i of every rank, in rank order.
  bool ok = true;
  for (uint64_t i = first; ok && i < lines; i += stride) {
    const uint64_t n = min(kOneShotLineData, bytes - i * kOneShotLineData);
    uint64_t acc = 0;
    for (int r = 0; r < l.nranks; ++r) {
      uint64_t v;
      if (r == l.rank) {
        v = LoadChunk(send + i * kOneShotLineData, n);
      } else {
        const LLLine* slot = DirectSlot(const_cast<uint8_t*>(l.scratch), l, call, r);
        if (!WaitLLLine(l, slot + i, call.flag,
                        WaitWhat{kDirectWaitChannel, kOneShotWaitInput, static_cast<uint32_t>(r)}, &v)) {
          ok = false;
          break;
        }
      }
      acc = r == 0 ? v : CombineWord<D, Op>(acc, v);
    }
    if (!ok) break;
    if (l.divisor != 0) acc = DivideWord<D>(acc, l.divisor);
    StoreChunk(recv + i * kOneShotLineData, acc, n);
  }
  EndDirectCall(l, call);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_
