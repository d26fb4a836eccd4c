// Tree AllReduce on one tree of the double binary tree (NCCL all_reduce.h
// runTreeUpDown): for all chunks, reduce up (leaves send, inner ranks reduce
// their children's data with their own and send it on, the root reduces into
// the output and divides for avg); then for all chunks, broadcast the result
// down from the root's output. The planner gives each tree half the data.
#include "coll/host/algorithms.h"
#include "coll/patterns/chunking.h"

namespace gpurun::coll {

template <typename P>
Status TreeAllReduce(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  TreeConns& tc = a.group->tree[w.tree];
  const int nchildren = tc.links.NumChildren();
  const bool root = tc.links.IsRoot();
  RecvConn* child_recv[kTreeMaxChildren] = {&tc.recv[1], &tc.recv[2]};
  SendConn* child_send[kTreeMaxChildren] = {&tc.send[1], &tc.send[2]};
  RecvConn* parent_recv = &tc.recv[0];
  SendConn* parent_send = &tc.send[0];
  const auto es = static_cast<uint64_t>(w.elem_size);
  {
    Prims<P> up(*a.config, child_recv, nchildren, &parent_send, root ? 0 : 1);
    for (uint64_t loop = 0; loop < w.loops; ++loop) {
      const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
      const uint64_t off = (w.part_offset + ch.offset) * es;
      if (root) {
        GR_RETURN_IF_ERROR(up.RecvReduceCopy(a.send + off, a.recv + off, ch.count, w.op == RedOp::kAvg));
      } else if (nchildren == 0) {
        GR_RETURN_IF_ERROR(up.Send(a.send + off, ch.count));
      } else {
        GR_RETURN_IF_ERROR(up.RecvReduceSend(a.send + off, ch.count));
      }
    }
    GR_RETURN_IF_ERROR(up.Finish());
  }
  Prims<P> down(*a.config, &parent_recv, root ? 0 : 1, child_send, nchildren);
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = (w.part_offset + ch.offset) * es;
    if (root) {
      GR_RETURN_IF_ERROR(down.Send(a.recv + off, ch.count));
    } else if (nchildren == 0) {
      GR_RETURN_IF_ERROR(down.Recv(a.recv + off, ch.count));
    } else {
      GR_RETURN_IF_ERROR(down.RecvCopySend(a.recv + off, ch.count));
    }
  }
  return down.Finish();
}

GR_INSTANTIATE_HOST_ALGO(TreeAllReduce);

}  // namespace gpurun::coll
