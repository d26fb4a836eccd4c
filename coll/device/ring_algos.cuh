// Ring AllReduce, AllGather, ReduceScatter, Broadcast and Reduce on device
// buffers: the host executor's algorithms (coll/host/ring_*.cc, after NCCL's
// all_reduce.h / all_gather.h / reduce_scatter.h / broadcast.h / reduce.h
// runRing) over either device primitives (PrimsSimple, PrimsLL: `P`), one
// WorkDesc at a time, on the buffers of its call (DevBuffers). The
// chunk orders come from the shared pattern headers, so a device rank and a
// host rank would agree step for step. Patterns count ring positions; the
// blocks of allgather and reduce_scatter lie in the buffers by rank, so
// their addresses go through the launch's position-to-rank table.
#ifndef GPURUN_COLL_DEVICE_RING_ALGOS_CUH_
#define GPURUN_COLL_DEVICE_RING_ALGOS_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/ring_schedule.h"
#include "coll/planner/work.h"

namespace gpurun::coll::dev {

template <typename P>
__device__ bool RingAllReduce(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  const int n = w.nranks, idx = w.ring_index;
  const bool post = w.op == RedOp::kAvg;
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    auto chunk = [&](int c) {
      const Range r = RingAllReduceChunk(w.part_count, n, w.chunk_count, w.elem_size, loop, c);
      return Range{w.part_offset + r.offset, r.count};
    };
    Range c = chunk(RingAllReduceSendChunk(idx, n, 0));
    if (!p.Send(send + c.offset, c.count)) return false;
    for (int t = 1; t < n - 1; ++t) {
      c = chunk(RingAllReduceSendChunk(idx, n, t));
      if (!p.RecvReduceSend(send + c.offset, c.count)) return false;
    }
    c = chunk(RingAllReduceSendChunk(idx, n, n - 1));
    if (!p.RecvReduceCopySend(send + c.offset, recv + c.offset, c.count, post)) return false;
    for (int t = n; t < 2 * n - 2; ++t) {
      c = chunk(RingAllReduceSendChunk(idx, n, t));
      if (!p.RecvCopySend(recv + c.offset, c.count)) return false;
    }
    c = chunk(RingAllReduceRecvChunk(idx, n, 2 * n - 3));
    if (!p.Recv(recv + c.offset, c.count)) return false;
  }
  return true;
}

template <typename P>
__device__ bool RingAllGather(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  const int n = w.nranks, idx = w.ring_index;
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    auto block = [&](int b) { return recv + BlockOffset(l.ring_ranks[b], w.count, off); };
    if (!p.CopySend(send + off, block(idx), ch.count)) return false;
    for (int t = 1; t < n - 1; ++t) {
      if (!p.RecvCopySend(block(RingAllGatherSendBlock(idx, n, t)), ch.count)) return false;
    }
    if (!p.Recv(block(RingAllGatherRecvBlock(idx, n, n - 2)), ch.count)) return false;
  }
  return true;
}

template <typename P>
__device__ bool RingReduceScatter(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  const int n = w.nranks, idx = w.ring_index;
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    auto block = [&](int b) { return send + BlockOffset(l.ring_ranks[b], w.count, off); };
    if (!p.Send(block(RingReduceScatterSendBlock(idx, n, 0)), ch.count)) return false;
    for (int t = 1; t < n - 1; ++t) {
      if (!p.RecvReduceSend(block(RingReduceScatterSendBlock(idx, n, t)), ch.count)) return false;
    }
    if (!p.RecvReduceCopy(block(RingReduceScatterRecvBlock(idx, n, n - 2)), recv + off, ch.count,
                          w.op == RedOp::kAvg)) {
      return false;
    }
  }
  return true;
}

template <typename P>
__device__ bool RingBroadcast(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  const ChainRole role = ChainRoleAt(BroadcastChainPos(w.ring_index, w.root, w.nranks), w.nranks);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    bool ok = true;
    switch (role) {
      case ChainRole::kHead: ok = p.CopySend(send + off, recv + off, ch.count); break;
      case ChainRole::kMiddle: ok = p.RecvCopySend(recv + off, ch.count); break;
      case ChainRole::kTail: ok = p.Recv(recv + off, ch.count); break;
      case ChainRole::kAlone: break;
    }
    if (!ok) return false;
  }
  return true;
}

template <typename P>
__device__ bool RingReduce(P& p, const WorkDesc& w, const DevBuffers& io, const DevLaunch& l) {
  using S = typename P::S;
  const S* send = static_cast<const S*>(io.send);
  S* recv = static_cast<S*>(io.recv);
  const ChainRole role = ChainRoleAt(ReduceChainPos(w.ring_index, w.root, w.nranks), w.nranks);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    bool ok = true;
    switch (role) {
      case ChainRole::kHead: ok = p.Send(send + off, ch.count); break;
      case ChainRole::kMiddle: ok = p.RecvReduceSend(send + off, ch.count); break;
      case ChainRole::kTail: ok = p.RecvReduceCopy(send + off, recv + off, ch.count, w.op == RedOp::kAvg); break;
      case ChainRole::kAlone: break;
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_RING_ALGOS_CUH_
