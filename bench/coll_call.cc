// The collective calls (see coll_call.h).
#include "bench/coll_call.h"

grResult_t CallColl(const CollCase& c, const CollBuffers& b, grComm_t comm) {
  const DataPattern& p = c.pattern;
  const void* send = SendPointer(c, b);
  void* recv = RecvPointer(c, b);
  const size_t count = c.layout.count;
  switch (p.kind) {
    case CollKind::kAllreduce: return grAllreduce(send, recv, count, p.type, p.op, comm, GR_STREAM_HOST);
    case CollKind::kBcast:
      if (c.in_place) return grBcast(recv, count, p.type, p.root, comm, GR_STREAM_HOST);
      return grBroadcast(send, recv, count, p.type, p.root, comm, GR_STREAM_HOST);
    case CollKind::kReduce: return grReduce(send, recv, count, p.type, p.op, p.root, comm, GR_STREAM_HOST);
    case CollKind::kAllgather: return grAllgather(send, recv, count, p.type, comm, GR_STREAM_HOST);
    case CollKind::kReduceScatter: return grReduceScatter(send, recv, count, p.type, p.op, comm, GR_STREAM_HOST);
    case CollKind::kAlltoall: return grAlltoall(send, recv, count, p.type, comm, GR_STREAM_HOST);
    case CollKind::kGather: return grGather(send, recv, count, p.type, p.root, comm, GR_STREAM_HOST);
    case CollKind::kScatter: return grScatter(send, recv, count, p.type, p.root, comm, GR_STREAM_HOST);
    case CollKind::kBarrier: return grBarrier(comm, GR_STREAM_HOST);
  }
  return grInvalidArgument;
}

const char* CollApiName(const CollCase& c) {
  switch (c.pattern.kind) {
    case CollKind::kAllreduce: return "grAllreduce";
    case CollKind::kBcast: return c.in_place ? "grBcast" : "grBroadcast";
    case CollKind::kReduce: return "grReduce";
    case CollKind::kAllgather: return "grAllgather";
    case CollKind::kReduceScatter: return "grReduceScatter";
    case CollKind::kAlltoall: return "grAlltoall";
    case CollKind::kGather: return "grGather";
    case CollKind::kScatter: return "grScatter";
    case CollKind::kBarrier: return "grBarrier";
  }
  return "?";
}
