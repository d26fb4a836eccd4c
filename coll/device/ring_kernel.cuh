// The device collective kernel: one block per WorkDesc of the launch, the
// ring algorithm of the work's function over the Simple primitives, for one
// (element type, operator) pair. avg runs as sum with a final division, so it
// has no kernel of its own. ring_kernels.cu.in instantiates it per type.
#ifndef GPURUN_COLL_DEVICE_RING_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_RING_KERNEL_CUH_

#include "coll/device/dev_launch.h"
#include "coll/device/ring_algos.cuh"

namespace gpurun::coll::dev {

// Threads per block the kernels are built for at most.
inline constexpr int kMaxDeviceThreads = 512;

template <DataType D, typename Op>
__global__ void __launch_bounds__(kMaxDeviceThreads) RingKernel(const __grid_constant__ DevLaunch l) {
  __shared__ WorkDesc w;
  __shared__ DevChannel chan;
  __shared__ int failed;
  if (threadIdx.x == 0) {
    w = l.work[blockIdx.x];
    chan = l.channels[w.channel];
    failed = 0;
  }
  __syncthreads();
  PrimsSimple<D, Op> p(l, w, &chan, &failed);
  switch (w.func) {
    case Func::kAllReduce: RingAllReduce<D, Op>(p, w, l); break;
    case Func::kAllGather: RingAllGather<D, Op>(p, w, l); break;
    case Func::kReduceScatter: RingReduceScatter<D, Op>(p, w, l); break;
    case Func::kBroadcast: RingBroadcast<D, Op>(p, w, l); break;
    case Func::kReduce: RingReduce<D, Op>(p, w, l); break;
  }
  p.Finish(&l.channels[w.channel]);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_RING_KERNEL_CUH_
