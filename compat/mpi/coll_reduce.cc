// Reductions: reduce/allreduce, reduce_scatter(_block), scan/exscan. With a
// contiguous datatype and an op gpurun has (SUM, PROD, MAX, MIN over its
// integer and floating types) the call is gpurun's own (GPU kernels for
// device buffers). Otherwise — MPI_SHORT, MPI_LONG_DOUBLE, MPI_C_BOOL,
// complex and pair types, logical/bitwise ops, MAXLOC/MINLOC, user ops,
// derived types — every rank's packed input is gathered at the root, which
// reduces in rank order (x0 op x1 op ... op xn-1, so non-commutative user ops
// are right), then scattered or broadcast. Scans pass a running result along
// the ranks in order over messages on the hidden communicator.
#include <cstring>

#include "compat/mpi/coll.h"
#include "compat/mpi/coll_check.h"
#include "compat/mpi/datatype.h"
#include "compat/mpi/device_memory.h"
#include "compat/mpi/op.h"

namespace gpurun::mpi {
namespace {

Error Gr(grResult_t r, const char* what) { return FromGr(r, what); }

// Reduces the n packed inputs in `all` (rank order, `bytes` each) into the
// first `bytes` of `all`... into `out`: x0 op x1 op ... op x(n-1).
Error ReduceInOrder(const OpInfo& op, MPI_Datatype handle, const Datatype& t, size_t count, std::byte* all,
                    size_t bytes, int n, std::byte* out) {
  std::memcpy(out, all + static_cast<size_t>(n - 1) * bytes, bytes);
  for (int i = n - 2; i >= 0; --i) MPI_RETURN_IF_ERROR(ApplyOp(op, handle, t, all + i * bytes, out, count));
  return Ok();
}

// The host path: the reduction of everyone's packed input at `root` (in
// *result there; every rank's result when root < 0).
Error HostReduce(Comm& c, const OpInfo& op, MPI_Datatype handle, const Datatype& t, size_t count, const std::byte* mine,
                 int root, std::vector<std::byte>* result) {
  const size_t bytes = count * t.size;
  const int at = root < 0 ? 0 : root;
  std::vector<std::byte> all(c.rank == at ? bytes * c.size : 0);
  MPI_RETURN_IF_ERROR(Gr(grGather(mine, all.data(), bytes, grByte, at, c.coll, GR_STREAM_HOST), "grGather"));
  result->resize(bytes);
  if (c.rank == at) MPI_RETURN_IF_ERROR(ReduceInOrder(op, handle, t, count, all.data(), bytes, c.size, result->data()));
  if (root < 0) {
    MPI_RETURN_IF_ERROR(Gr(grBcast(result->data(), bytes, grByte, at, c.coll, GR_STREAM_HOST), "grBcast"));
  }
  return Ok();
}

Error CheckReduction(MPI_Datatype type, MPI_Op op, int count, TypePtr* t, OpInfo* info) {
  MPI_RETURN_IF_ERROR(CheckCount(count, "count"));
  MPI_RETURN_IF_ERROR(CheckType(type, "datatype", t));
  MPI_RETURN_IF_ERROR(CheckOp(op, info));
  return CheckOpType(*info, **t);
}

}  // namespace

Error PlanReduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 Run* run) {
  TypePtr t;
  OpInfo info;
  MPI_RETURN_IF_ERROR(CheckReduction(type, op, count, &t, &info));
  if (root != -1) MPI_RETURN_IF_ERROR(CheckRoot(c, root));  // -1: allreduce
  const bool receiver = root < 0 || c.rank == root;
  if (sendbuf == MPI_IN_PLACE && !receiver) return Fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  Comm* cp = &c;
  *run = [=]() -> Error {
    const void* send = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    grDataType_t gt;
    grRedOp_t go;
    size_t elems = 0;
    if (GrReduction(info, *t, &gt, &go, &elems)) {
      const size_t n = static_cast<size_t>(count) * elems;
      if (root < 0) return Gr(grAllreduce(send, recvbuf, n, gt, go, cp->coll, GR_STREAM_HOST), "grAllreduce");
      return Gr(grReduce(send, receiver ? recvbuf : nullptr, n, gt, go, root, cp->coll, GR_STREAM_HOST), "grReduce");
    }
    std::vector<std::byte> mine(static_cast<size_t>(count) * t->size), result;
    MPI_RETURN_IF_ERROR(Pack(send, count, *t, mine.data()));
    MPI_RETURN_IF_ERROR(HostReduce(*cp, info, type, *t, count, mine.data(), root, &result));
    if (receiver) MPI_RETURN_IF_ERROR(Unpack(result.data(), result.size(), count, *t, recvbuf));
    return Ok();
  };
  return Ok();
}

Error PlanReduceScatter(Comm& c, const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype type,
                        MPI_Op op, Run* run) {
  std::vector<int> counts(recvcounts, recvcounts + c.size);
  int total = 0;
  for (int n : counts) {
    MPI_RETURN_IF_ERROR(CheckCount(n, "recvcounts[i]"));
    total += n;
  }
  TypePtr t;
  OpInfo info;
  MPI_RETURN_IF_ERROR(CheckReduction(type, op, total, &t, &info));
  Comm* cp = &c;
  *run = [=]() -> Error {
    const int me = cp->rank;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    const void* send = in_place ? recvbuf : sendbuf;
    bool uniform = true;
    for (int n : counts) uniform = uniform && n == counts[0];
    grDataType_t gt;
    grRedOp_t go;
    size_t elems = 0;
    if (uniform && GrReduction(info, *t, &gt, &go, &elems)) {
      const size_t n = static_cast<size_t>(counts[0]) * elems;
      const size_t block = static_cast<size_t>(counts[0]) * t->size;
      if (!in_place) {
        return Gr(grReduceScatter(send, recvbuf, n, gt, go, cp->coll, GR_STREAM_HOST), "grReduceScatter");
      }
      // MPI's in place: the input is all of recvbuf, the result goes to its
      // start; gpurun's in place leaves it at block `rank`, moved after.
      std::byte* mine = static_cast<std::byte*>(recvbuf) + me * block;
      MPI_RETURN_IF_ERROR(Gr(grReduceScatter(recvbuf, mine, n, gt, go, cp->coll, GR_STREAM_HOST), "grReduceScatter"));
      if (me != 0) MPI_RETURN_IF_ERROR(CopyBytes(recvbuf, mine, block));
      return Ok();
    }
    std::vector<std::byte> all(static_cast<size_t>(total) * t->size), result;
    MPI_RETURN_IF_ERROR(Pack(send, total, *t, all.data()));
    MPI_RETURN_IF_ERROR(HostReduce(*cp, info, type, *t, total, all.data(), 0, &result));
    std::vector<size_t> sizes(cp->size), offs(cp->size, 0);
    for (int i = 0; i < cp->size; ++i) {
      sizes[i] = static_cast<size_t>(counts[i]) * t->size;
      if (i > 0) offs[i] = offs[i - 1] + sizes[i - 1];
    }
    std::vector<std::byte> block(sizes[me]);
    MPI_RETURN_IF_ERROR(Gr(grScatterv(result.data(), sizes.data(), offs.data(), block.data(), sizes[me], grByte, 0,
                                      cp->coll, GR_STREAM_HOST),
                           "grScatterv"));
    return Unpack(block.data(), block.size(), counts[me], *t, recvbuf);
  };
  return Ok();
}

Error PlanScan(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, bool exclusive,
               Run* run) {
  TypePtr t;
  OpInfo info;
  MPI_RETURN_IF_ERROR(CheckReduction(type, op, count, &t, &info));
  Comm* cp = &c;
  *run = [=]() -> Error {
    const int me = cp->rank;
    const int tag = static_cast<int>(cp->coll_seq++ % (static_cast<uint32_t>(GR_TAG_UB) + 1));
    const size_t bytes = static_cast<size_t>(count) * t->size;
    std::vector<std::byte> mine(bytes), prev(bytes);
    MPI_RETURN_IF_ERROR(Pack(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, *t, mine.data()));
    // Rank r gets x0 op ... op x(r-1) from r-1 and passes that op x_r on.
    if (me > 0) {
      MPI_RETURN_IF_ERROR(
          Gr(grRecv(prev.data(), bytes, grByte, me - 1, tag, cp->coll, GR_STATUS_IGNORE, GR_STREAM_HOST), "grRecv"));
    }
    std::vector<std::byte> upto = mine;  // x0 op ... op x_r
    if (me > 0) MPI_RETURN_IF_ERROR(ApplyOp(info, type, *t, prev.data(), upto.data(), count));
    if (me + 1 < cp->size) {
      MPI_RETURN_IF_ERROR(Gr(grSend(upto.data(), bytes, grByte, me + 1, tag, cp->coll, GR_STREAM_HOST), "grSend"));
    }
    if (!exclusive) return Unpack(upto.data(), bytes, count, *t, recvbuf);
    if (me > 0) return Unpack(prev.data(), bytes, count, *t, recvbuf);  // rank 0's result is undefined
    return Ok();
  };
  return Ok();
}

}  // namespace gpurun::mpi

extern "C" int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  using namespace gpurun::mpi;
  TypePtr t;
  OpInfo info;
  Error e = CheckReduction(datatype, op, count, &t, &info);
  if (!e.ok()) return ReportWorld("MPI_Reduce_local", e);
  const size_t bytes = static_cast<size_t>(count) * t->size;
  std::vector<std::byte> in(bytes), io(bytes);
  e = Pack(inbuf, count, *t, in.data());
  if (e.ok()) e = Pack(inoutbuf, count, *t, io.data());
  if (e.ok()) e = ApplyOp(info, datatype, *t, in.data(), io.data(), count);
  if (e.ok()) e = Unpack(io.data(), bytes, count, *t, inoutbuf);
  return e.ok() ? MPI_SUCCESS : ReportWorld("MPI_Reduce_local", e);
}
