// Validation of collective arguments at the C boundary (api_coll*.cc),
// turned into the calls the engines take: coll::CollCall for the ring/tree
// executor, the *Call structs of coll_p2p.h for the point-to-point
// collectives. The communicator has been checked live already (CheckComm).
//
// Rules (gpurun.h is the contract): the type and the reduction op are in
// range; a root is a rank of the communicator; a buffer may be null only when
// it moves nothing (or where gpurun.h says it is unused: the receive buffer
// of grReduce and grGather off the root, the send buffer of grBroadcast and
// grScatter off the root); element counts times element size, and times the
// communicator's size for the per-rank-block calls, must not overflow; the
// per-rank count and displacement arrays must be there where used, their
// blocks must fit in size_t and the blocks a rank receives must not overlap
// each other; a rank's block to itself must have one size on both sides;
// the send and receive buffers may not overlap except exactly as each call's
// in-place rule says. Every failure is grInvalidArgument whose message names
// the argument and the rule; callers add the C function's name. The stream is
// checked last, by CheckCollStream.
#ifndef GPURUN_RUNTIME_COLL_ARGS_H_
#define GPURUN_RUNTIME_COLL_ARGS_H_

#include <cstddef>
#include <cstdint>

#include "coll/host/host_coll.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/coll_p2p.h"
#include "runtime/comm.h"

namespace gpurun {

// GR_STREAM_HOST passes; a device stream is grUnsupported (no GPU data path yet).
Status CheckCollStream(grStream_t stream);

// Ring/tree collectives (coll_args.cc).
StatusOr<coll::CollCall> CheckBcast(const grComm& comm, void* buf, size_t count, grDataType_t type, int root);
StatusOr<coll::CollCall> CheckBroadcast(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                        grDataType_t type, int root);
StatusOr<coll::CollCall> CheckReduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                     grDataType_t type, grRedOp_t op, int root);
StatusOr<coll::CollCall> CheckAllreduce(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                        grDataType_t type, grRedOp_t op);
StatusOr<coll::CollCall> CheckAllgather(const grComm& comm, const void* sendbuf, void* recvbuf, size_t sendcount,
                                        grDataType_t type);
StatusOr<coll::CollCall> CheckReduceScatter(const grComm& comm, const void* sendbuf, void* recvbuf, size_t recvcount,
                                            grDataType_t type, grRedOp_t op);

// Point-to-point collectives (coll_args_p2p.cc).
StatusOr<AlltoallvCall> CheckAlltoall(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                      grDataType_t type);
StatusOr<AlltoallvCall> CheckAlltoallv(const grComm& comm, const void* sendbuf, const size_t* sendcounts,
                                       const size_t* sdispls, void* recvbuf, const size_t* recvcounts,
                                       const size_t* rdispls, grDataType_t type);
StatusOr<AllgathervCall> CheckAllgatherv(const grComm& comm, const void* sendbuf, size_t sendcount, void* recvbuf,
                                         const size_t* recvcounts, const size_t* displs, grDataType_t type);
StatusOr<GathervCall> CheckGather(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                  grDataType_t type, int root);
StatusOr<GathervCall> CheckGatherv(const grComm& comm, const void* sendbuf, size_t sendcount, void* recvbuf,
                                   const size_t* recvcounts, const size_t* displs, grDataType_t type, int root);
StatusOr<ScattervCall> CheckScatter(const grComm& comm, const void* sendbuf, void* recvbuf, size_t count,
                                    grDataType_t type, int root);
StatusOr<ScattervCall> CheckScatterv(const grComm& comm, const void* sendbuf, const size_t* sendcounts,
                                     const size_t* displs, void* recvbuf, size_t recvcount, grDataType_t type,
                                     int root);

namespace coll_args {

// The building blocks of the checks above (shared by both .cc files).

// A root in [0, size).
Status CheckRoot(const grComm& comm, int root);
// An op in grRedOp_t.
StatusOr<coll::RedOp> CheckRedOp(grRedOp_t op);
// a * b, or InvalidArgument saying `what` overflows.
StatusOr<size_t> Times(size_t a, size_t b, const char* what);

// A byte range of a buffer argument.
struct Range {
  const void* base = nullptr;
  size_t bytes = 0;
};
// Whether `inner` (the send buffer, or for grReduceScatter and grScatter(v)
// the receive buffer) lies exactly at `in_place_at` inside `outer` (in
// place: OK), else that the two do not overlap at all; `rule` states the
// call's in-place rule in the error. Empty ranges never overlap. Returns
// whether the call is in place.
StatusOr<bool> CheckOverlap(Range inner, const char* inner_name, Range outer, const char* outer_name,
                            const void* in_place_at, const char* rule);
// base + bytes without pointer arithmetic on a null base.
inline const void* Offset(const void* base, size_t bytes) {
  return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(base) + bytes);
}

// Per-rank count and displacement arrays (names as the C call spells them):
// both non-null, every block's end (displ + count) * elem_size fits in
// size_t; with `disjoint`, no two non-empty blocks overlap. Returns the
// extent in bytes (the end of the last block).
StatusOr<size_t> CheckBlocks(const grComm& comm, const size_t* counts, const size_t* displs, size_t elem_size,
                             const char* counts_name, const char* displs_name, bool disjoint);

}  // namespace coll_args
}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_ARGS_H_
