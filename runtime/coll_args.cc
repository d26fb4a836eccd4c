// Collective argument checks: the shared building blocks and the ring/tree
// collectives (see coll_args.h).
#include "runtime/coll_args.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/coll_args_quick.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace coll_args {
namespace {

std::string Hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

std::string Describe(Range r, const char* name) {
  return std::string(name) + " [" + Hex(r.base) + ", +" + std::to_string(r.bytes) + " bytes)";
}

}  // namespace

Status CheckRoot(const grComm& comm, int root) {
  if (root >= 0 && root < comm.size) return OkStatus();
  return InvalidArgument("root " + std::to_string(root) + " is outside the communicator's ranks [0, " +
                         std::to_string(comm.size) + ")");
}

StatusOr<coll::RedOp> CheckRedOp(grRedOp_t op) {
  if (static_cast<int>(op) >= 0 && op < grNumOps) return static_cast<coll::RedOp>(op);
  return InvalidArgument("reduction operation " + std::to_string(static_cast<int>(op)) +
                         " is not a grRedOp_t (grSum, grProd, grMax, grMin, grAvg)");
}

StatusOr<size_t> Times(size_t a, size_t b, const char* what) {
  if (b != 0 && a > std::numeric_limits<size_t>::max() / b) {
    return InvalidArgument(std::string(what) + " (" + std::to_string(a) + " x " + std::to_string(b) +
                           ") overflows size_t");
  }
  return a * b;
}

StatusOr<bool> CheckOverlap(Range inner, const char* inner_name, Range outer, const char* outer_name,
                            const void* in_place_at, const char* rule) {
  if (inner.bytes == 0 || outer.bytes == 0) return inner.base == in_place_at;
  if (inner.base == in_place_at) return true;
  const auto i0 = reinterpret_cast<uintptr_t>(inner.base), o0 = reinterpret_cast<uintptr_t>(outer.base);
  const bool disjoint = i0 + inner.bytes <= o0 || o0 + outer.bytes <= i0;
  if (disjoint) return false;
  return InvalidArgument(Describe(inner, inner_name) + " overlaps " + Describe(outer, outer_name) +
                         " but is not in place: " + rule);
}

StatusOr<size_t> CheckBlocks(const grComm& comm, const size_t* counts, const size_t* displs, size_t elem_size,
                             const char* counts_name, const char* displs_name, bool disjoint) {
  if (counts == nullptr) return InvalidArgument(std::string(counts_name) + " is null");
  if (displs == nullptr) return InvalidArgument(std::string(displs_name) + " is null");
  size_t extent = 0;
  for (int i = 0; i < comm.size; ++i) {
    const size_t end = displs[i] + counts[i];
    if (end < displs[i] || end > std::numeric_limits<size_t>::max() / elem_size) {
      return InvalidArgument("the block of rank " + std::to_string(i) + " (" + displs_name + "[" + std::to_string(i) +
                             "] = " + std::to_string(displs[i]) + ", " + counts_name + "[" + std::to_string(i) +
                             "] = " + std::to_string(counts[i]) + " elements of " + std::to_string(elem_size) +
                             " bytes) overflows the byte count");
    }
    if (counts[i] > 0) extent = std::max(extent, end * elem_size);
  }
  if (!disjoint) return extent;
  std::vector<int> order(comm.size);
  std::iota(order.begin(), order.end(), 0);
  std::erase_if(order, [&](int i) { return counts[i] == 0; });
  std::sort(order.begin(), order.end(), [&](int a, int b) { return displs[a] < displs[b]; });
  for (size_t k = 1; k < order.size(); ++k) {
    const int a = order[k - 1], b = order[k];
    if (displs[a] + counts[a] > displs[b]) {
      return InvalidArgument("the blocks of ranks " + std::to_string(a) + " and " + std::to_string(b) +
                             " overlap in the receive buffer (" + displs_name + "[" + std::to_string(a) +
                             "] = " + std::to_string(displs[a]) + ", " + counts_name + "[" + std::to_string(a) +
                             "] = " + std::to_string(counts[a]) + ", " + displs_name + "[" + std::to_string(b) +
                             "] = " + std::to_string(displs[b]) + ")");
    }
  }
  return extent;
}

}  // namespace coll_args

using coll_args::CheckOverlap;
using coll_args::CheckRedOp;
using coll_args::CheckRoot;
using coll_args::Offset;
using coll_args::Range;
using coll_args::Times;

Status CheckCollStream(grStream_t stream) {
  if (stream == GR_STREAM_HOST) return OkStatus();
  return Unsupported(
      "a stream orders device work, but the buffers are host memory (or this build has no GPU path); pass "
      "GR_STREAM_HOST for host buffers");
}

namespace {

using coll_quick::MakeCall;

StatusOr<coll::CollCall> FullCheckBcast(const grComm& comm, void* buf, size_t count, grDataType_t type, int root) {
  GR_RETURN_IF_ERROR(DataTypeSize(type).status());
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_RETURN_IF_ERROR(BufferBytes(buf, count, type, "buf").status());
  return MakeCall(coll::Func::kBroadcast, buf, buf, count, type, coll::RedOp::kSum, root);
}

StatusOr<coll::CollCall> FullCheckBroadcast(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                            grDataType_t type, int root) {
  GR_RETURN_IF_ERROR(DataTypeSize(type).status());
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(recvbuf, count, type, "recvbuf"));
  if (comm.rank != root)
    return MakeCall(coll::Func::kBroadcast, recvbuf, recvbuf, count, type, coll::RedOp::kSum, root);
  GR_RETURN_IF_ERROR(BufferBytes(sendbuf, count, type, "sendbuf at the root").status());
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, bytes}, "recvbuf", recvbuf,
                                  "in place at the root means sendbuf == recvbuf")
                         .status());
  return MakeCall(coll::Func::kBroadcast, sendbuf, recvbuf, count, type, coll::RedOp::kSum, root);
}

StatusOr<coll::CollCall> FullCheckReduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                         grDataType_t type, grRedOp_t op, int root) {
  GR_RETURN_IF_ERROR(DataTypeSize(type).status());
  GR_ASSIGN_OR_RETURN(const coll::RedOp red, CheckRedOp(op));
  GR_RETURN_IF_ERROR(CheckRoot(comm, root));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, count, type, "sendbuf"));
  // Off the root recvbuf is unused (and may be null): the executor gets none.
  if (comm.rank != root) return MakeCall(coll::Func::kReduce, sendbuf, nullptr, count, type, red, root);
  GR_RETURN_IF_ERROR(BufferBytes(recvbuf, count, type, "recvbuf at the root").status());
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, bytes}, "recvbuf", recvbuf,
                                  "in place means sendbuf == recvbuf")
                         .status());
  return MakeCall(coll::Func::kReduce, sendbuf, recvbuf, count, type, red, root);
}

StatusOr<coll::CollCall> FullCheckAllreduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                            grDataType_t type, grRedOp_t op) {
  (void)comm;
  GR_RETURN_IF_ERROR(DataTypeSize(type).status());
  GR_ASSIGN_OR_RETURN(const coll::RedOp red, CheckRedOp(op));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, count, type, "sendbuf"));
  GR_RETURN_IF_ERROR(BufferBytes(recvbuf, count, type, "recvbuf").status());
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, bytes}, "recvbuf", recvbuf,
                                  "in place means sendbuf == recvbuf")
                         .status());
  return MakeCall(coll::Func::kAllReduce, sendbuf, recvbuf, count, type, red);
}

}  // namespace

StatusOr<coll::CollCall> CheckBcast(const grComm& comm, void* buf, size_t count, grDataType_t type, int root) {
  coll::CollCall call;
  if (QuickBcast(comm, buf, count, type, root, &call)) [[likely]]
    return call;
  return FullCheckBcast(comm, buf, count, type, root);
}

StatusOr<coll::CollCall> CheckBroadcast(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                        grDataType_t type, int root) {
  coll::CollCall call;
  if (QuickBroadcast(comm, sendbuf, recvbuf, count, type, root, &call)) [[likely]]
    return call;
  return FullCheckBroadcast(comm, sendbuf, recvbuf, count, type, root);
}

StatusOr<coll::CollCall> CheckReduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                     grDataType_t type, grRedOp_t op, int root) {
  coll::CollCall call;
  if (QuickReduce(comm, sendbuf, recvbuf, count, type, op, root, &call)) [[likely]]
    return call;
  return FullCheckReduce(comm, sendbuf, recvbuf, count, type, op, root);
}

StatusOr<coll::CollCall> CheckAllreduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                        grDataType_t type, grRedOp_t op) {
  coll::CollCall call;
  if (QuickAllreduce(sendbuf, recvbuf, count, type, op, &call)) [[likely]]
    return call;
  return FullCheckAllreduce(comm, sendbuf, recvbuf, count, type, op);
}

StatusOr<coll::CollCall> CheckAllgather(const grComm& comm, const void* sendbuf, void* recvbuf, size_t sendcount,
                                        grDataType_t type) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(sendbuf, sendcount, type, "sendbuf"));
  GR_ASSIGN_OR_RETURN(const size_t total, Times(sendcount, comm.size, "sendcount times the communicator's size"));
  GR_ASSIGN_OR_RETURN(const size_t total_bytes, BufferBytes(recvbuf, total, type, "recvbuf"));
  GR_RETURN_IF_ERROR(CheckOverlap({sendbuf, bytes}, "sendbuf", {recvbuf, total_bytes}, "recvbuf",
                                  Offset(recvbuf, comm.rank * sendcount * es),
                                  "in place means sendbuf == recvbuf + rank * sendcount elements")
                         .status());
  return MakeCall(coll::Func::kAllGather, sendbuf, recvbuf, sendcount, type);
}

StatusOr<coll::CollCall> CheckReduceScatter(const grComm& comm, const void* sendbuf, void* recvbuf, size_t recvcount,
                                            grDataType_t type, grRedOp_t op) {
  GR_ASSIGN_OR_RETURN(const size_t es, DataTypeSize(type));
  GR_ASSIGN_OR_RETURN(const coll::RedOp red, CheckRedOp(op));
  GR_ASSIGN_OR_RETURN(const size_t bytes, BufferBytes(recvbuf, recvcount, type, "recvbuf"));
  GR_ASSIGN_OR_RETURN(const size_t total, Times(recvcount, comm.size, "recvcount times the communicator's size"));
  GR_ASSIGN_OR_RETURN(const size_t total_bytes, BufferBytes(sendbuf, total, type, "sendbuf"));
  GR_RETURN_IF_ERROR(CheckOverlap({recvbuf, bytes}, "recvbuf", {sendbuf, total_bytes}, "sendbuf",
                                  Offset(sendbuf, comm.rank * recvcount * es),
                                  "in place means recvbuf == sendbuf + rank * recvcount elements")
                         .status());
  return MakeCall(coll::Func::kReduceScatter, sendbuf, recvbuf, recvcount, type, red);
}

}  // namespace gpurun
