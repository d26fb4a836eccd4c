// Collectives of the MPI layer as plans: each Plan* checks its arguments at
// once (an error is returned before anything starts) and yields the work as
// a closure, which the blocking call runs in place and the nonblocking one
// hands to the communicator's CollQueue. The work runs on the hidden `coll`
// gpurun communicator: straight through gpurun's collective when the
// datatype is contiguous (and, for reductions, gpurun has the type and op),
// so device buffers take gpurun's GPU path; otherwise through host staging
// (pack/unpack) and, for reductions gpurun lacks, a host reduction in rank
// order over gpurun's gather and broadcast.
#ifndef GPURUN_COMPAT_MPI_COLL_H_
#define GPURUN_COMPAT_MPI_COLL_H_

#include <functional>
#include <vector>

#include "compat/mpi/comm.h"
#include "compat/mpi/errors.h"
#include "mpi.h"

namespace gpurun::mpi {

using Run = std::function<Error()>;

Error PlanBarrier(Comm& c, Run* run);
Error PlanBcast(Comm& c, void* buf, int count, MPI_Datatype type, int root, Run* run);
Error PlanGather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, bool all, bool uniform,
                 Run* run);
Error PlanScatter(Comm& c, const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, bool uniform, Run* run);
Error PlanAlltoall(Comm& c, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                   void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, bool uniform,
                   Run* run);
// root < 0: allreduce.
Error PlanReduce(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 Run* run);
Error PlanReduceScatter(Comm& c, const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype type,
                        MPI_Op op, Run* run);
Error PlanScan(Comm& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, bool exclusive,
               Run* run);

// `uniform`: the non-v call (MPI_Gather, MPI_Scatter, MPI_Alltoall, ...):
// every rank then makes gpurun's uniform call, whatever its own datatypes.
//
// Uniform counts and displacements (in elements) for the v-variants.
std::vector<int> Uniform(int n, int count);
std::vector<int> Strided(int n, int count);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_COLL_H_
