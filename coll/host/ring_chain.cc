// Ring Broadcast and Reduce (NCCL broadcast.h / reduce.h runRing): a
// pipelined chain along the ring, one chunk per loop. Broadcast: the root
// copies and sends, the others receive and forward, the last only receives.
// Reduce: the root's next sends, the others reduce and forward, the root
// reduces into the output (avg divides there).
#include "coll/host/algorithms.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/ring_schedule.h"

namespace gpurun::coll {

template <typename P>
Status RingBroadcast(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  RecvConn* recv = &a.group->ring_recv;
  SendConn* send = &a.group->ring_send;
  Prims<P> prims(*a.config, &recv, 1, &send, 1);
  const ChainRole role = ChainRoleAt(BroadcastChainPos(w.ring_index, w.root, w.nranks), w.nranks);
  const auto es = static_cast<uint64_t>(w.elem_size);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = (w.part_offset + ch.offset) * es;
    switch (role) {
      case ChainRole::kHead: GR_PRIMS_RETURN_IF_ERROR(prims.CopySend(a.send + off, a.recv + off, ch.count)); break;
      case ChainRole::kMiddle: GR_PRIMS_RETURN_IF_ERROR(prims.RecvCopySend(a.recv + off, ch.count)); break;
      case ChainRole::kTail: GR_PRIMS_RETURN_IF_ERROR(prims.Recv(a.recv + off, ch.count)); break;
      case ChainRole::kAlone: return InternalError("ring broadcast planned for a single rank");
    }
  }
  return prims.Finish();
}

template <typename P>
Status RingReduce(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  RecvConn* recv = &a.group->ring_recv;
  SendConn* send = &a.group->ring_send;
  Prims<P> prims(*a.config, &recv, 1, &send, 1);
  const ChainRole role = ChainRoleAt(ReduceChainPos(w.ring_index, w.root, w.nranks), w.nranks);
  const auto es = static_cast<uint64_t>(w.elem_size);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = (w.part_offset + ch.offset) * es;
    switch (role) {
      case ChainRole::kHead: GR_PRIMS_RETURN_IF_ERROR(prims.Send(a.send + off, ch.count)); break;
      case ChainRole::kMiddle: GR_PRIMS_RETURN_IF_ERROR(prims.RecvReduceSend(a.send + off, ch.count)); break;
      case ChainRole::kTail:
        GR_PRIMS_RETURN_IF_ERROR(prims.RecvReduceCopy(a.send + off, a.recv + off, ch.count, w.op == RedOp::kAvg));
        break;
      case ChainRole::kAlone: return InternalError("ring reduce planned for a single rank");
    }
  }
  return prims.Finish();
}

GR_INSTANTIATE_HOST_ALGO(RingBroadcast);
GR_INSTANTIATE_HOST_ALGO(RingReduce);

}  // namespace gpurun::coll
