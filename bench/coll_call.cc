// The collective calls (see coll_call.h).
#include "bench/coll_call.h"

namespace {

// sendrecv's tag; the benchmark's own messages travel on a duplicate communicator (bench_ctrl.h).
constexpr int kSendrecvTag = 0;

}  // namespace

grResult_t CallColl(const CollCase& c, BufferView b, grComm_t comm, grStream_t stream) {
  const DataPattern& p = c.pattern;
  const void* send = SendPointer(c, b);
  void* recv = RecvPointer(c, b);
  const size_t count = c.layout.count;
  switch (p.kind) {
    case CollKind::kAllreduce: return grAllreduce(send, recv, count, p.type, p.op, comm, stream);
    case CollKind::kBcast:
      if (c.in_place) return grBcast(recv, count, p.type, p.root, comm, stream);
      return grBroadcast(send, recv, count, p.type, p.root, comm, stream);
    case CollKind::kReduce: return grReduce(send, recv, count, p.type, p.op, p.root, comm, stream);
    case CollKind::kAllgather: return grAllgather(send, recv, count, p.type, comm, stream);
    case CollKind::kReduceScatter: return grReduceScatter(send, recv, count, p.type, p.op, comm, stream);
    case CollKind::kAlltoall: return grAlltoall(send, recv, count, p.type, comm, stream);
    case CollKind::kGather: return grGather(send, recv, count, p.type, p.root, comm, stream);
    case CollKind::kScatter: return grScatter(send, recv, count, p.type, p.root, comm, stream);
    case CollKind::kSendrecv:
      return grSendrecv(send, count, p.type, RingNext(c.rank, p.nranks), kSendrecvTag, recv, count, p.type,
                        RingPrev(c.rank, p.nranks), kSendrecvTag, comm, GR_STATUS_IGNORE, stream);
    case CollKind::kBarrier: return grBarrier(comm, stream);
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
    case CollKind::kSendrecv: return "grSendrecv";
    case CollKind::kBarrier: return "grBarrier";
  }
  return "?";
}

CallCode GpurunLibrary::Call(const CollCase& c) { return Code(CallColl(c, buffers_, grCommWorld(), stream_)); }

CallCode GpurunLibrary::GroupStart() { return Code(grGroupStart()); }

CallCode GpurunLibrary::GroupEnd() { return Code(grGroupEnd()); }

CallCode GpurunLibrary::Code(grResult_t rc) {
  if (rc == grSuccess) return CallCode::kOk;
  last_error_ = rc;
  return rc == grUnsupported ? CallCode::kUnsupported : CallCode::kFailed;
}

std::string GpurunLibrary::ErrorText() const {
  return std::string(grGetErrorString(last_error_)) + ": " + grGetLastErrorMessage();
}
