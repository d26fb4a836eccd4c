// Ring AllReduce (NCCL all_reduce.h runRing): per loop, nranks chunks;
// reduce-scatter over n-1 transfers (send, recvReduceSend..., then
// recvReduceCopySend where the chunk becomes final and avg divides), then
// all-gather over n-1 (recvCopySend..., recv). Chunk order: ring_schedule.h.
#include "coll/host/algorithms.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/ring_schedule.h"

namespace gpurun::coll {

template <typename P>
Status RingAllReduce(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  RecvConn* recv = &a.group->ring_recv;
  SendConn* send = &a.group->ring_send;
  Prims<P> prims(*a.config, &recv, 1, &send, 1);
  const int n = w.nranks, idx = w.ring_index;
  const auto es = static_cast<uint64_t>(w.elem_size);
  const bool post = w.op == RedOp::kAvg;
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    auto chunk = [&](int c) {
      const Range r = RingAllReduceChunk(w.part_count, n, w.chunk_count, w.elem_size, loop, c);
      return Range{w.part_offset + r.offset, r.count};
    };
    auto src = [&](Range r) { return a.send + r.offset * es; };
    auto dst = [&](Range r) { return a.recv + r.offset * es; };
    Range c = chunk(RingAllReduceSendChunk(idx, n, 0));
    GR_RETURN_IF_ERROR(prims.Send(src(c), c.count));
    for (int t = 1; t < n - 1; ++t) {
      c = chunk(RingAllReduceSendChunk(idx, n, t));
      GR_RETURN_IF_ERROR(prims.RecvReduceSend(src(c), c.count));
    }
    c = chunk(RingAllReduceSendChunk(idx, n, n - 1));
    GR_RETURN_IF_ERROR(prims.RecvReduceCopySend(src(c), dst(c), c.count, post));
    for (int t = n; t < 2 * n - 2; ++t) {
      c = chunk(RingAllReduceSendChunk(idx, n, t));
      GR_RETURN_IF_ERROR(prims.RecvCopySend(dst(c), c.count));
    }
    c = chunk(RingAllReduceRecvChunk(idx, n, 2 * n - 3));
    GR_RETURN_IF_ERROR(prims.Recv(dst(c), c.count));
  }
  return prims.Finish();
}

GR_INSTANTIATE_HOST_ALGO(RingAllReduce);

}  // namespace gpurun::coll
