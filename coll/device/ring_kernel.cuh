// The device collective kernel: one block per WorkDesc of the launch, the
// ring algorithm of the work's function over the primitives of the work's
// protocol (LL, LL128 or Simple; every work of a launch has the same), for one
// (element type, operator) pair. avg runs as sum with a final division, so it
// has no kernel of its own. ring_kernels.cu.in instantiates it per type.
#ifndef GPURUN_COLL_DEVICE_RING_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_RING_KERNEL_CUH_

#include "coll/device/dev_launch.h"
#include "coll/device/prims_ll.cuh"
#include "coll/device/prims_ll128.cuh"
#include "coll/device/prims_simple.cuh"
#include "coll/device/ring_algos.cuh"

namespace gpurun::coll::dev {

// Threads per block the kernels are built for at most.
inline constexpr int kMaxDeviceThreads = 512;

// One work with the primitives of its protocol; the step counters go back
// to the channel's device-memory state for the next launch.
template <typename P>
__device__ void RunRingWork(P& p, const WorkDesc& w, const DevLaunch& l) {
  DevChannel& home = l.channels[w.channel];
  switch (w.func) {
    case Func::kAllReduce: RingAllReduce(p, w, l); break;
    case Func::kAllGather: RingAllGather(p, w, l); break;
    case Func::kReduceScatter: RingReduceScatter(p, w, l); break;
    case Func::kBroadcast: RingBroadcast(p, w, l); break;
    case Func::kReduce: RingReduce(p, w, l); break;
  }
  p.Finish(&home.recv_step, &home.send_step);
}

template <DataType D, typename Op>
__global__ void __launch_bounds__(kMaxDeviceThreads) RingKernel(const __grid_constant__ DevLaunch l) {
  __shared__ WorkDesc w;
  __shared__ DevPeers<1> peers;
  __shared__ int failed;
  if (threadIdx.x == 0) {
    w = l.work[blockIdx.x];
    LoadRingPeers(l.channels[w.channel], w.channel, &peers);
    failed = 0;
  }
  __syncthreads();
  if (w.proto == Protocol::kLL) {
    PrimsLL<D, Op> p(l, w, &peers, &failed);
    RunRingWork(p, w, l);
  } else if (w.proto == Protocol::kLL128) {
    PrimsLL128<D, Op> p(l, w, &peers, &failed);
    RunRingWork(p, w, l);
  } else {
    PrimsSimple<D, Op> p(l, w, &peers, &failed);
    RunRingWork(p, w, l);
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_RING_KERNEL_CUH_
