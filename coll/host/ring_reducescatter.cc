// Ring ReduceScatter (NCCL reduce_scatter.h runRing): for each chunk of the
// channel's piece of a block, send block index-1, reduce-and-forward n-2
// blocks, and end with the own block reduced into the output (avg divides).
#include "coll/host/algorithms.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/ring_schedule.h"

namespace gpurun::coll {

template <typename P>
Status RingReduceScatter(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  RecvConn* recv = &a.group->ring_recv;
  SendConn* send = &a.group->ring_send;
  Prims<P> prims(*a.config, &recv, 1, &send, 1);
  const int n = w.nranks, idx = w.ring_index;
  const auto es = static_cast<uint64_t>(w.elem_size);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    auto block = [&](int b) { return a.send + BlockOffset(b, w.count, off) * es; };
    GR_RETURN_IF_ERROR(prims.Send(block(RingReduceScatterSendBlock(idx, n, 0)), ch.count));
    for (int t = 1; t < n - 1; ++t) {
      GR_RETURN_IF_ERROR(prims.RecvReduceSend(block(RingReduceScatterSendBlock(idx, n, t)), ch.count));
    }
    GR_RETURN_IF_ERROR(prims.RecvReduceCopy(block(RingReduceScatterRecvBlock(idx, n, n - 2)), a.recv + off * es,
                                            ch.count, w.op == RedOp::kAvg));
  }
  return prims.Finish();
}

GR_INSTANTIATE_HOST_ALGO(RingReduceScatter);

}  // namespace gpurun::coll
