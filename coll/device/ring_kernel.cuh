// The device collective kernel: each block runs its works (DevLaunch's
// block_first: one work of one call, or those of several calls of a group
// fused into one launch, all on the block's channel), one after another,
// each the ring algorithm of the work's function over the primitives of the
// work's protocol (LL, LL128 or Simple) on its call's buffers, for one
// (element type, operator) pair. A work that fails (a wait gave up) ends
// the block's list. avg runs as sum with a final division, so it has no
// kernel of its own. ring_kernels.cu.in instantiates it per type.
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
// to the channel's device-memory state for the next work or launch.
template <typename P>
__device__ void RunRingWork(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  DevChannel& home = l.channels[w.channel];
  switch (w.func) {
    case Func::kAllReduce: RingAllReduce(p, w, io, l); break;
    case Func::kAllGather: RingAllGather(p, w, io, l); break;
    case Func::kReduceScatter: RingReduceScatter(p, w, io, l); break;
    case Func::kBroadcast: RingBroadcast(p, w, io, l); break;
    case Func::kReduce: RingReduce(p, w, io, l); break;
  }
  p.Finish(&home.recv_step, &home.send_step);
}

template <DataType D, typename Op>
__global__ void __launch_bounds__(kMaxDeviceThreads) RingKernel(const __grid_constant__ DevLaunch l) {
  __shared__ WorkDesc w;
  __shared__ DevBuffers io;
  __shared__ DevPeers<1> peers;
  __shared__ int failed;
  const int first = l.block_first[blockIdx.x];
  const int end = l.block_first[blockIdx.x + 1];
  for (int i = first; i < end; ++i) {
    // Thread 0 stored the last work's counters (Finish): it reads them back.
    if (threadIdx.x == 0) {
      w = l.work[i];
      io = l.buffers[i];
      LoadRingPeers(l.channels[w.channel], w.channel, &peers);
      if (i == first) failed = 0;
    }
    __syncthreads();
    if (w.proto == Protocol::kLL) {
      PrimsLL<D, Op> p(l, w, &peers, &failed);
      RunRingWork(p, w, io, l);
    } else if (w.proto == Protocol::kLL128) {
      PrimsLL128<D, Op> p(l, w, &peers, &failed);
      RunRingWork(p, w, io, l);
    } else {
      PrimsSimple<D, Op> p(l, w, &peers, &failed);
      RunRingWork(p, w, io, l);
    }
    // Every thread is done with w, io and peers before thread 0 refills them.
    __syncthreads();
    if (failed != 0) break;
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_RING_KERNEL_CUH_
