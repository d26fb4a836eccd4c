// The NCCL calls (see nccl_call.h).
#include "bench/nccl_call.h"

#include "bench/elem_codec.h"

namespace {

// gpurun numbers its types and ops as NCCL does (gpurun.h), so they convert by value.
static_assert(grInt8 == static_cast<int>(ncclInt8) && grUint8 == static_cast<int>(ncclUint8) &&
              grInt32 == static_cast<int>(ncclInt32) && grUint32 == static_cast<int>(ncclUint32) &&
              grInt64 == static_cast<int>(ncclInt64) && grUint64 == static_cast<int>(ncclUint64) &&
              grFloat16 == static_cast<int>(ncclFloat16) && grFloat32 == static_cast<int>(ncclFloat32) &&
              grFloat64 == static_cast<int>(ncclFloat64) && grBfloat16 == static_cast<int>(ncclBfloat16));
static_assert(grSum == static_cast<int>(ncclSum) && grProd == static_cast<int>(ncclProd) &&
              grMax == static_cast<int>(ncclMax) && grMin == static_cast<int>(ncclMin) &&
              grAvg == static_cast<int>(ncclAvg));

// The pointers and arguments of one call.
struct Args {
  const NcclApi& api;
  ncclComm_t comm;
  cudaStream_t stream;
  const CollCase& c;
  char* send;
  char* recv;
  ncclDataType_t type;
  size_t block;  // bytes of `count` elements: one rank's block
};

// Runs `body` between ncclGroupStart and ncclGroupEnd; the first error.
template <typename Body>
ncclResult_t Grouped(const NcclApi& api, Body body) {
  if (const ncclResult_t rc = api.GroupStart(); rc != ncclSuccess) return rc;
  const ncclResult_t body_rc = body();
  const ncclResult_t end_rc = api.GroupEnd();
  return body_rc != ncclSuccess ? body_rc : end_rc;
}

// Block p of every rank's send buffer to rank p, block p of the receive buffer from rank p.
ncclResult_t Alltoall(const Args& a) {
  return Grouped(a.api, [&] {
    const size_t count = a.c.layout.count;
    for (int p = 0; p < a.c.pattern.nranks; ++p) {
      if (const auto rc = a.api.Send(a.send + p * a.block, count, a.type, p, a.comm, a.stream); rc) return rc;
      if (const auto rc = a.api.Recv(a.recv + p * a.block, count, a.type, p, a.comm, a.stream); rc) return rc;
    }
    return ncclSuccess;
  });
}

// Every rank's send buffer to the root's block of that rank.
ncclResult_t Gather(const Args& a) {
  return Grouped(a.api, [&] {
    const size_t count = a.c.layout.count;
    const int root = a.c.pattern.root;
    if (const auto rc = a.api.Send(a.send, count, a.type, root, a.comm, a.stream); rc) return rc;
    for (int p = 0; a.c.rank == root && p < a.c.pattern.nranks; ++p) {
      if (const auto rc = a.api.Recv(a.recv + p * a.block, count, a.type, p, a.comm, a.stream); rc) return rc;
    }
    return ncclSuccess;
  });
}

// The root's block p to rank p's receive buffer.
ncclResult_t Scatter(const Args& a) {
  return Grouped(a.api, [&] {
    const size_t count = a.c.layout.count;
    const int root = a.c.pattern.root;
    for (int p = 0; a.c.rank == root && p < a.c.pattern.nranks; ++p) {
      if (const auto rc = a.api.Send(a.send + p * a.block, count, a.type, p, a.comm, a.stream); rc) return rc;
    }
    return a.api.Recv(a.recv, count, a.type, root, a.comm, a.stream);
  });
}

// One block to the next rank of the ring, one from the previous (nccl-tests' sendrecv_perf).
ncclResult_t Sendrecv(const Args& a) {
  return Grouped(a.api, [&] {
    const size_t count = a.c.layout.count;
    const int nranks = a.c.pattern.nranks;
    if (const auto rc = a.api.Send(a.send, count, a.type, RingNext(a.c.rank, nranks), a.comm, a.stream); rc) return rc;
    return a.api.Recv(a.recv, count, a.type, RingPrev(a.c.rank, nranks), a.comm, a.stream);
  });
}

}  // namespace

bool NcclHas(const CollCase& c) {
  if (c.pattern.kind == CollKind::kBarrier) return false;
  if (c.in_place && !HasInPlace(c.pattern.kind)) return false;  // sendrecv
  return !(c.pattern.kind == CollKind::kAlltoall && c.in_place);
}

const char* NcclApiName(const CollCase& c) {
  switch (c.pattern.kind) {
    case CollKind::kAllreduce: return "ncclAllReduce";
    case CollKind::kBcast: return "ncclBroadcast";
    case CollKind::kReduce: return "ncclReduce";
    case CollKind::kAllgather: return "ncclAllGather";
    case CollKind::kReduceScatter: return "ncclReduceScatter";
    case CollKind::kAlltoall: return "ncclSend/ncclRecv (alltoall)";
    case CollKind::kGather: return "ncclSend/ncclRecv (gather)";
    case CollKind::kScatter: return "ncclSend/ncclRecv (scatter)";
    case CollKind::kSendrecv: return "ncclSend/ncclRecv (sendrecv)";
    case CollKind::kBarrier: return "(no NCCL barrier)";
  }
  return "?";
}

ncclResult_t CallNccl(const NcclApi& api, ncclComm_t comm, cudaStream_t stream, const CollCase& c, BufferView b) {
  const DataPattern& p = c.pattern;
  const auto type = static_cast<ncclDataType_t>(p.type);
  const auto op = static_cast<ncclRedOp_t>(p.op);
  const size_t count = c.layout.count;
  char* send = static_cast<char*>(SendPointer(c, b));
  char* recv = static_cast<char*>(RecvPointer(c, b));
  const Args a{api, comm, stream, c, send, recv, type, count * ElemSize(p.type)};
  switch (p.kind) {
    case CollKind::kAllreduce: return api.AllReduce(send, recv, count, type, op, comm, stream);
    case CollKind::kBcast: return api.Broadcast(send, recv, count, type, p.root, comm, stream);
    case CollKind::kReduce: return api.Reduce(send, recv, count, type, op, p.root, comm, stream);
    case CollKind::kAllgather: return api.AllGather(send, recv, count, type, comm, stream);
    case CollKind::kReduceScatter: return api.ReduceScatter(send, recv, count, type, op, comm, stream);
    case CollKind::kAlltoall: return Alltoall(a);
    case CollKind::kGather: return Gather(a);
    case CollKind::kScatter: return Scatter(a);
    case CollKind::kSendrecv: return Sendrecv(a);
    case CollKind::kBarrier: break;
  }
  return ncclInvalidUsage;
}
