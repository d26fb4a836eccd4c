// The stream extension: stream-ordered collectives and messages on device
// buffers (NCCL's semantics), straight onto gpurun's calls with the stream.
// Only what gpurun runs on a stream is accepted: contiguous predefined
// datatypes, and for reductions the types and ops gpurun has; anything else
// is MPI_ERR_TYPE / MPI_ERR_OP (no host fallback can be stream-ordered).
#include "compat/mpi/coll_check.h"
#include "compat/mpi/comm.h"
#include "compat/mpi/op.h"
#include "compat/mpi/request.h"

namespace gpurun::mpi {
namespace {

grStream_t ToGr(MPIX_Stream_t s) { return reinterpret_cast<grStream_t>(s); }

Error StreamType(MPI_Datatype type, int count, TypePtr* t) {
  MPI_RETURN_IF_ERROR(CheckCount(count, "count"));
  MPI_RETURN_IF_ERROR(CheckType(type, "datatype", t));
  if (!(*t)->Contiguous()) return Fail(MPI_ERR_TYPE, "stream-ordered calls need a contiguous datatype");
  return Ok();
}

Error StreamReduction(MPI_Datatype type, MPI_Op op, int count, grDataType_t* gt, grRedOp_t* go, size_t* n) {
  TypePtr t;
  MPI_RETURN_IF_ERROR(StreamType(type, count, &t));
  OpInfo info;
  MPI_RETURN_IF_ERROR(CheckOp(op, &info));
  size_t elems = 0;
  if (!GrReduction(info, *t, gt, go, &elems)) {
    return Fail(MPI_ERR_OP,
                "stream-ordered reductions support MPI_SUM/PROD/MAX/MIN on 8/32/64-bit integers, float and "
                "double only (" +
                    t->name + ")");
  }
  *n = static_cast<size_t>(count) * elems;
  return Ok();
}

// Runs `body` with the checked communicator; reports its error.
template <typename F>
int With(MPI_Comm comm, const char* what, F&& body) {
  std::shared_ptr<Comm> c;
  Error e = CheckComm(comm, &c);
  if (e.ok()) e = body(*c);
  return e.ok() ? MPI_SUCCESS : Report(comm, what, e);
}

}  // namespace
}  // namespace gpurun::mpi

using gpurun::mpi::Comm;
using gpurun::mpi::Error;
using gpurun::mpi::FromGr;
using gpurun::mpi::ToGr;
using gpurun::mpi::With;

extern "C" {

int MPIX_Allreduce_enqueue(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Allreduce_enqueue", [&](Comm& c) -> Error {
    grDataType_t t;
    grRedOp_t o;
    size_t n = 0;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamReduction(datatype, op, count, &t, &o, &n));
    const void* s = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    gpurun::mpi::DrainQueue(c);
    return FromGr(grAllreduce(s, recvbuf, n, t, o, c.coll, ToGr(stream)), "grAllreduce");
  });
}

int MPIX_Reduce_enqueue(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                        MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Reduce_enqueue", [&](Comm& c) -> Error {
    grDataType_t t;
    grRedOp_t o;
    size_t n = 0;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamReduction(datatype, op, count, &t, &o, &n));
    MPI_RETURN_IF_ERROR(gpurun::mpi::CheckRoot(c, root));
    const void* s = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    gpurun::mpi::DrainQueue(c);
    return FromGr(grReduce(s, recvbuf, n, t, o, root, c.coll, ToGr(stream)), "grReduce");
  });
}

int MPIX_Bcast_enqueue(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Bcast_enqueue", [&](Comm& c) -> Error {
    gpurun::mpi::TypePtr t;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamType(datatype, count, &t));
    MPI_RETURN_IF_ERROR(gpurun::mpi::CheckRoot(c, root));
    gpurun::mpi::DrainQueue(c);
    return FromGr(grBcast(buffer, count * t->size, grByte, root, c.coll, ToGr(stream)), "grBcast");
  });
}

int MPIX_Allgather_enqueue(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Allgather_enqueue", [&](Comm& c) -> Error {
    gpurun::mpi::TypePtr st, rt;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamType(recvtype, recvcount, &rt));
    const size_t block = static_cast<size_t>(recvcount) * rt->size;
    const void* s = static_cast<std::byte*>(recvbuf) + c.rank * block;
    if (sendbuf != MPI_IN_PLACE) {
      MPI_RETURN_IF_ERROR(gpurun::mpi::StreamType(sendtype, sendcount, &st));
      if (sendcount * st->size != block) return gpurun::mpi::Fail(MPI_ERR_TRUNCATE, "send and receive blocks differ");
      s = sendbuf;
    }
    gpurun::mpi::DrainQueue(c);
    return FromGr(grAllgather(s, recvbuf, block, grByte, c.coll, ToGr(stream)), "grAllgather");
  });
}

int MPIX_Reduce_scatter_block_enqueue(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Reduce_scatter_block_enqueue", [&](Comm& c) -> Error {
    grDataType_t t;
    grRedOp_t o;
    size_t n = 0;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamReduction(datatype, op, recvcount, &t, &o, &n));
    if (sendbuf == MPI_IN_PLACE) {
      return gpurun::mpi::Fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is not supported by the stream-ordered reduce_scatter");
    }
    gpurun::mpi::DrainQueue(c);
    return FromGr(grReduceScatter(sendbuf, recvbuf, n, t, o, c.coll, ToGr(stream)), "grReduceScatter");
  });
}

int MPIX_Barrier_enqueue(MPI_Comm comm, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Barrier_enqueue", [&](Comm& c) -> Error {
    gpurun::mpi::DrainQueue(c);
    return FromGr(grBarrier(c.coll, ToGr(stream)), "grBarrier");
  });
}

int MPIX_Send_enqueue(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                      MPIX_Stream_t stream) {
  return With(comm, "MPIX_Send_enqueue", [&](Comm& c) -> Error {
    gpurun::mpi::TypePtr t;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamType(datatype, count, &t));
    if (dest == MPI_PROC_NULL) return gpurun::mpi::Ok();
    return FromGr(grSend(buf, count * t->size, grByte, dest, tag, c.gr, ToGr(stream)), "grSend");
  });
}

int MPIX_Recv_enqueue(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                      MPI_Status* status, MPIX_Stream_t stream) {
  return With(comm, "MPIX_Recv_enqueue", [&](Comm& c) -> Error {
    gpurun::mpi::TypePtr t;
    MPI_RETURN_IF_ERROR(gpurun::mpi::StreamType(datatype, count, &t));
    if (source == MPI_PROC_NULL) return gpurun::mpi::Ok();
    if (status != MPI_STATUS_IGNORE) {
      return gpurun::mpi::Fail(MPI_ERR_ARG,
                               "MPIX_Recv_enqueue fills no status (pass MPI_STATUS_IGNORE); errors come from the "
                               "communicator's next stream-ordered call");
    }
    return FromGr(grRecv(buf, count * t->size, grByte, source, tag, c.gr, GR_STATUS_IGNORE, ToGr(stream)), "grRecv");
  });
}

int MPIX_Query_cuda_support(void) {
#ifdef GPURUN_MPI_CUDA
  return 1;
#else
  return 0;
#endif
}

}  // extern "C"
