// The device tree kernel: tree AllReduce (NCCL all_reduce.h runTreeUpDown,
// the host executor's coll/host/tree_allreduce.cc) on one tree of the double
// binary tree per work — for all chunks, reduce up (leaves send, inner
// ranks reduce their children's data with their own and send it on, the root
// reduces into the output and divides for avg), then broadcast the result
// down from the root's output. Two primitives objects of Fan 2 per block
// (prims_peers.cuh): the up phase's (children in, parent out) and the down
// phase's (parent in, children out). tree_kernels.cu.in instantiates it per
// type; its own kernel, so the ring kernel's registers stay the ring's.
#ifndef GPURUN_COLL_DEVICE_TREE_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_TREE_KERNEL_CUH_

#include "coll/device/dev_launch.h"
#include "coll/device/prims_ll.cuh"
#include "coll/device/prims_ll128.cuh"
#include "coll/device/prims_peers.cuh"
#include "coll/device/prims_simple.cuh"
#include "coll/device/ring_kernel.cuh"
#include "coll/patterns/chunking.h"

namespace gpurun::coll::dev {

inline constexpr int kTreeFan = 2;

// The two phases' peers of one (channel, tree) (thread 0 fills them).
__device__ inline void LoadTreePeers(const DevTreeLinks& t, uint32_t channel, DevPeers<kTreeFan>* up,
                                     DevPeers<kTreeFan>* down) {
  const int parent = t.peer[0] >= 0 ? 1 : 0;
  *up = DevPeers<kTreeFan>{};
  *down = DevPeers<kTreeFan>{};
  for (int k = 0; k < t.nchildren; ++k) {
    up->recv[k] = t.recv[1 + k];
    up->recv_rank[k] = t.peer[1 + k];
    down->send[k] = t.send[1 + k];
    down->send_rank[k] = t.peer[1 + k];
  }
  up->nrecv = t.nchildren;
  down->nsend = t.nchildren;
  if (parent != 0) {
    up->send[0] = t.send[0];
    up->send_rank[0] = t.peer[0];
    down->recv[0] = t.recv[0];
    down->recv_rank[0] = t.peer[0];
  }
  up->nsend = parent;
  down->nrecv = parent;
  up->recv_step = t.up_recv_step;
  up->send_step = t.up_send_step;
  down->recv_step = t.down_recv_step;
  down->send_step = t.down_send_step;
  up->channel = channel;
  down->channel = channel;
}

template <typename P>
__device__ bool TreeReduceUp(P& p, const WorkDesc& w, const DevBuffers& io, bool root, bool leaf) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    bool ok;
    if (root) {
      ok = p.RecvReduceCopy(send + off, recv + off, ch.count, w.op == RedOp::kAvg);
    } else if (leaf) {
      ok = p.Send(send + off, ch.count);
    } else {
      ok = p.RecvReduceSend(send + off, ch.count);
    }
    if (!ok) return false;
  }
  return true;
}

template <typename P>
__device__ bool TreeBroadcastDown(P& p, const WorkDesc& w, const DevBuffers& io, bool root, bool leaf) {
  using S = typename P::S;
  S* recv = static_cast<S*>(io.recv);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    bool ok;
    if (root) {
      ok = p.Send(recv + off, ch.count);
    } else if (leaf) {
      ok = p.Recv(recv + off, ch.count);
    } else {
      ok = p.RecvCopySend(recv + off, ch.count);
    }
    if (!ok) return false;
  }
  return true;
}

// One work: the up phase, then (if it completed) the down phase; each
// phase's step counters go back to the tree's device-memory state.
template <typename P>
__device__ void RunTreeWork(const DevLaunch& l, const WorkDesc& w, const DevBuffers& io, const DevPeers<kTreeFan>* up,
                            const DevPeers<kTreeFan>* down, int* failed) {
  DevTreeLinks& home = l.trees[w.channel * 2 + w.tree];
  const bool root = up->nsend == 0;
  const bool leaf = up->nrecv == 0;
  {
    P p(l, w, up, failed);
    const bool ok = TreeReduceUp(p, w, io, root, leaf);
    p.Finish(&home.up_recv_step, &home.up_send_step);
    if (!ok) return;
  }
  P p(l, w, down, failed);
  TreeBroadcastDown(p, w, io, root, leaf);
  p.Finish(&home.down_recv_step, &home.down_send_step);
}

// Each block runs its works (DevLaunch's block_first: all on one (channel,
// tree)) one after another, as the ring kernel does.
template <DataType D, typename Op>
__global__ void __launch_bounds__(kMaxDeviceThreads) TreeKernel(const __grid_constant__ DevLaunch l) {
  __shared__ WorkDesc w;
  __shared__ DevBuffers io;
  __shared__ DevPeers<kTreeFan> up;
  __shared__ DevPeers<kTreeFan> down;
  __shared__ int failed;
  const int first = l.block_first[blockIdx.x];
  const int end = l.block_first[blockIdx.x + 1];
  for (int i = first; i < end; ++i) {
    // Thread 0 stored the last work's counters (Finish): it reads them back.
    if (threadIdx.x == 0) {
      w = l.work[i];
      io = l.buffers[i];
      LoadTreePeers(l.trees[w.channel * 2 + w.tree], w.channel, &up, &down);
      if (i == first) failed = 0;
    }
    __syncthreads();
    if (w.proto == Protocol::kLL) {
      RunTreeWork<PrimsLL<D, Op, kTreeFan>>(l, w, io, &up, &down, &failed);
    } else if (w.proto == Protocol::kLL128) {
      RunTreeWork<PrimsLL128<D, Op, kTreeFan>>(l, w, io, &up, &down, &failed);
    } else {
      RunTreeWork<PrimsSimple<D, Op, kTreeFan>>(l, w, io, &up, &down, &failed);
    }
    // Every thread is done with w, io and the peers before thread 0 refills them.
    __syncthreads();
    if (failed != 0) break;
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_TREE_KERNEL_CUH_
