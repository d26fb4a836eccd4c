// Ring AllGather (NCCL all_gather.h runRing): for each chunk of the channel's
// piece of a block, the rank sends its own block (copying it into place when
// out of place), forwards n-2 received blocks and keeps the last.
#include "coll/host/algorithms.h"
#include "coll/patterns/chunking.h"
#include "coll/patterns/ring_schedule.h"

namespace gpurun::coll {

template <typename P>
Status RingAllGather(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  RecvConn* recv = &a.group->ring_recv;
  SendConn* send = &a.group->ring_send;
  Prims<P> prims(*a.config, &recv, 1, &send, 1);
  const int n = w.nranks, idx = w.ring_index;
  const auto es = static_cast<uint64_t>(w.elem_size);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = w.part_offset + ch.offset;
    auto block = [&](int b) { return a.recv + BlockOffset(b, w.count, off) * es; };
    GR_RETURN_IF_ERROR(prims.CopySend(a.send + off * es, block(idx), ch.count));
    for (int t = 1; t < n - 1; ++t) {
      GR_RETURN_IF_ERROR(prims.RecvCopySend(block(RingAllGatherSendBlock(idx, n, t)), ch.count));
    }
    GR_RETURN_IF_ERROR(prims.Recv(block(RingAllGatherRecvBlock(idx, n, n - 2)), ch.count));
  }
  return prims.Finish();
}

GR_INSTANTIATE_HOST_ALGO(RingAllGather);

}  // namespace gpurun::coll
