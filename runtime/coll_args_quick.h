// The hot path of the ring/tree collectives' argument checks (coll_args.h):
// plain comparisons, no Status. Each Quick* returns true with *call filled
// when every argument passes; false when one may be wrong, and then the full
// Check* (which accepts exactly what these accept, and possibly more) says
// what is wrong. The communicator is live already.
#ifndef GPURUN_RUNTIME_COLL_ARGS_QUICK_H_
#define GPURUN_RUNTIME_COLL_ARGS_QUICK_H_

#include <cstddef>
#include <cstdint>

#include "coll/host/host_coll.h"
#include "gpurun/gpurun.h"
#include "runtime/comm.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace coll_quick {

inline coll::CollCall MakeCall(coll::Func func, const void* send, void* recv, size_t count, grDataType_t type,
                               coll::RedOp op = coll::RedOp::kSum, int root = 0) {
  coll::CollCall call;
  call.func = func;
  call.send = send;
  call.recv = recv;
  call.count = count;
  call.type = static_cast<coll::DataType>(type);
  call.op = op;
  call.root = root;
  return call;
}

inline bool RedOpOk(grRedOp_t op) { return static_cast<int>(op) >= 0 && op < grNumOps; }
inline bool RootOk(const grComm& comm, int root) { return root >= 0 && root < comm.size; }

// sendbuf and recvbuf of `bytes` each: the same (in place), empty or disjoint.
inline bool InPlaceOrDisjoint(const void* send, const void* recv, size_t bytes) {
  if (send == recv || bytes == 0) return true;
  const auto s = reinterpret_cast<uintptr_t>(send), r = reinterpret_cast<uintptr_t>(recv);
  return s + bytes <= r || r + bytes <= s;
}

}  // namespace coll_quick

inline bool QuickBcast(const grComm& comm, void* buf, size_t count, grDataType_t type, int root, coll::CollCall* call) {
  size_t bytes = 0;
  if (!internal::QuickBytes(buf, count, type, &bytes) || !coll_quick::RootOk(comm, root)) return false;
  *call = coll_quick::MakeCall(coll::Func::kBroadcast, buf, buf, count, type, coll::RedOp::kSum, root);
  return true;
}

inline bool QuickBroadcast(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count, grDataType_t type,
                           int root, coll::CollCall* call) {
  size_t bytes = 0, send_bytes = 0;
  if (!internal::QuickBytes(recvbuf, count, type, &bytes) || !coll_quick::RootOk(comm, root)) return false;
  if (comm.rank != root) {
    *call = coll_quick::MakeCall(coll::Func::kBroadcast, recvbuf, recvbuf, count, type, coll::RedOp::kSum, root);
    return true;
  }
  if (!internal::QuickBytes(sendbuf, count, type, &send_bytes) ||
      !coll_quick::InPlaceOrDisjoint(sendbuf, recvbuf, bytes)) {
    return false;
  }
  *call = coll_quick::MakeCall(coll::Func::kBroadcast, sendbuf, recvbuf, count, type, coll::RedOp::kSum, root);
  return true;
}

inline bool QuickReduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count, grDataType_t type,
                        grRedOp_t op, int root, coll::CollCall* call) {
  size_t bytes = 0, recv_bytes = 0;
  if (!internal::QuickBytes(sendbuf, count, type, &bytes) || !coll_quick::RedOpOk(op) ||
      !coll_quick::RootOk(comm, root)) {
    return false;
  }
  const auto red = static_cast<coll::RedOp>(op);
  // Off the root recvbuf is unused (and may be null): the executor gets none.
  if (comm.rank != root) {
    *call = coll_quick::MakeCall(coll::Func::kReduce, sendbuf, nullptr, count, type, red, root);
    return true;
  }
  if (!internal::QuickBytes(recvbuf, count, type, &recv_bytes) ||
      !coll_quick::InPlaceOrDisjoint(sendbuf, recvbuf, bytes)) {
    return false;
  }
  *call = coll_quick::MakeCall(coll::Func::kReduce, sendbuf, recvbuf, count, type, red, root);
  return true;
}

inline bool QuickAllreduce(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grRedOp_t op,
                           coll::CollCall* call) {
  size_t bytes = 0, recv_bytes = 0;
  if (!internal::QuickBytes(sendbuf, count, type, &bytes) || !internal::QuickBytes(recvbuf, count, type, &recv_bytes) ||
      !coll_quick::RedOpOk(op) || !coll_quick::InPlaceOrDisjoint(sendbuf, recvbuf, bytes)) {
    return false;
  }
  *call = coll_quick::MakeCall(coll::Func::kAllReduce, sendbuf, recvbuf, count, type, static_cast<coll::RedOp>(op));
  return true;
}

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_ARGS_QUICK_H_
