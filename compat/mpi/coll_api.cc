// The MPI collective calls, blocking and nonblocking, over the plans of
// coll.h: a blocking call waits for the communicator's nonblocking
// collectives to run (MPI orders collectives per communicator), then runs its
// plan; a nonblocking call queues it and returns a request.
#include "compat/mpi/coll.h"
#include "compat/mpi/coll_check.h"
#include "compat/mpi/coll_queue.h"
#include "compat/mpi/request.h"

namespace gpurun::mpi {
namespace {

using Planner = std::function<Error(Comm&, Run*)>;

int Blocking(MPI_Comm comm, const char* what, const Planner& plan) {
  std::shared_ptr<Comm> c;
  Error e = CheckComm(comm, &c);
  Run run;
  if (e.ok()) e = plan(*c, &run);
  if (e.ok()) e = DrainQueue(*c);
  if (e.ok()) e = run();
  return e.ok() ? MPI_SUCCESS : Report(comm, what, e);
}

int Nonblocking(MPI_Comm comm, const char* what, MPI_Request* request, const Planner& plan) {
  std::shared_ptr<Comm> c;
  Error e = CheckComm(comm, &c);
  if (e.ok() && request == nullptr) e = Fail(MPI_ERR_ARG, "request is null");
  Run run;
  if (e.ok()) e = plan(*c, &run);
  if (!e.ok()) return Report(comm, what, e);
  auto task = std::make_shared<CollTask>();
  task->run = std::move(run);
  {
    std::lock_guard<std::mutex> lock(c->queue_mu);
    if (c->queue == nullptr) c->queue = std::make_unique<CollQueue>();
    c->queue->Push(task);
  }
  auto entry = std::make_unique<RequestEntry>();
  entry->comm = comm;
  entry->task = std::move(task);
  *request = AddRequest(std::move(entry));
  return MPI_SUCCESS;
}

Error RootOk(const Comm& c, int root) { return CheckRoot(c, root); }

}  // namespace
}  // namespace gpurun::mpi

using gpurun::mpi::Blocking;
using gpurun::mpi::Comm;
using gpurun::mpi::Error;
using gpurun::mpi::Nonblocking;
using gpurun::mpi::Run;

namespace {

// The planners, shared by each blocking call and its nonblocking twin.
auto Barrier() {
  return [](Comm& c, Run* run) { return gpurun::mpi::PlanBarrier(c, run); };
}
auto Bcast(void* buf, int count, MPI_Datatype type, int root) {
  return [=](Comm& c, Run* run) { return gpurun::mpi::PlanBcast(c, buf, count, type, root, run); };
}
auto Reduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, int root) {
  return [=](Comm& c, Run* run) -> Error {
    MPI_RETURN_IF_ERROR(gpurun::mpi::RootOk(c, root));
    return gpurun::mpi::PlanReduce(c, s, r, count, type, op, root, run);
  };
}
auto Allreduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op) {
  return [=](Comm& c, Run* run) { return gpurun::mpi::PlanReduce(c, s, r, count, type, op, -1, run); };
}
auto Gatherv(const void* s, int sc, MPI_Datatype st, void* r, const int* rc, const int* d, MPI_Datatype rt, int root,
             bool all, int uniform) {
  return [=](Comm& c, Run* run) -> Error {
    if (!all) MPI_RETURN_IF_ERROR(gpurun::mpi::RootOk(c, root));
    const bool receiver = all || c.rank == root;
    if (uniform >= 0 && receiver) {
      MPI_RETURN_IF_ERROR(gpurun::mpi::CheckCount(uniform, "recvcount"));
      const std::vector<int> counts = gpurun::mpi::Uniform(c.size, uniform);
      const std::vector<int> displs = gpurun::mpi::Strided(c.size, uniform);
      return gpurun::mpi::PlanGather(c, s, sc, st, r, counts.data(), displs.data(), rt, root, all, true, run);
    }
    return gpurun::mpi::PlanGather(c, s, sc, st, r, rc, d, rt, root, all, uniform >= 0, run);
  };
}
auto Scatterv(const void* s, const int* sc, const int* d, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root,
              int uniform) {
  return [=](Comm& c, Run* run) -> Error {
    MPI_RETURN_IF_ERROR(gpurun::mpi::RootOk(c, root));
    if (uniform >= 0 && c.rank == root) {
      MPI_RETURN_IF_ERROR(gpurun::mpi::CheckCount(uniform, "sendcount"));
      const std::vector<int> counts = gpurun::mpi::Uniform(c.size, uniform);
      const std::vector<int> displs = gpurun::mpi::Strided(c.size, uniform);
      return gpurun::mpi::PlanScatter(c, s, counts.data(), displs.data(), st, r, rc, rt, root, true, run);
    }
    return gpurun::mpi::PlanScatter(c, s, sc, d, st, r, rc, rt, root, uniform >= 0, run);
  };
}
auto Alltoallv(const void* s, const int* sc, const int* sd, MPI_Datatype st, void* r, const int* rc, const int* rd,
               MPI_Datatype rt, int suniform, int runiform) {
  return [=](Comm& c, Run* run) -> Error {
    if (runiform >= 0) {
      MPI_RETURN_IF_ERROR(gpurun::mpi::CheckCount(runiform, "recvcount"));
      if (s != MPI_IN_PLACE) MPI_RETURN_IF_ERROR(gpurun::mpi::CheckCount(suniform, "sendcount"));
      const std::vector<int> scn = gpurun::mpi::Uniform(c.size, suniform), sdn = gpurun::mpi::Strided(c.size, suniform);
      const std::vector<int> rcn = gpurun::mpi::Uniform(c.size, runiform), rdn = gpurun::mpi::Strided(c.size, runiform);
      return gpurun::mpi::PlanAlltoall(c, s, scn.data(), sdn.data(), st, r, rcn.data(), rdn.data(), rt, true, run);
    }
    return gpurun::mpi::PlanAlltoall(c, s, sc, sd, st, r, rc, rd, rt, false, run);
  };
}
auto ReduceScatter(const void* s, void* r, const int* rc, MPI_Datatype type, MPI_Op op, int uniform) {
  return [=](Comm& c, Run* run) -> Error {
    if (uniform >= 0 || rc == nullptr) {
      MPI_RETURN_IF_ERROR(gpurun::mpi::CheckCount(uniform, "recvcount"));
      const std::vector<int> counts = gpurun::mpi::Uniform(c.size, uniform);
      return gpurun::mpi::PlanReduceScatter(c, s, r, counts.data(), type, op, run);
    }
    return gpurun::mpi::PlanReduceScatter(c, s, r, rc, type, op, run);
  };
}
auto Scan(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, bool exclusive) {
  return [=](Comm& c, Run* run) { return gpurun::mpi::PlanScan(c, s, r, count, type, op, exclusive, run); };
}

}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) { return Blocking(comm, "MPI_Barrier", Barrier()); }
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) { return Nonblocking(comm, "MPI_Ibarrier", request, Barrier()); }

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return Blocking(comm, "MPI_Bcast", Bcast(buffer, count, datatype, root));
}
int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Ibcast", request, Bcast(buffer, count, datatype, root));
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return Blocking(comm, "MPI_Reduce", Reduce(sendbuf, recvbuf, count, datatype, op, root));
}
int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Ireduce", request, Reduce(sendbuf, recvbuf, count, datatype, op, root));
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking(comm, "MPI_Allreduce", Allreduce(sendbuf, recvbuf, count, datatype, op));
}
int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iallreduce", request, Allreduce(sendbuf, recvbuf, count, datatype, op));
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking(comm, "MPI_Gather",
                  Gatherv(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, root, false, recvcount));
}
int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(
      comm, "MPI_Igather", request,
      Gatherv(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, root, false, recvcount));
}
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking(comm, "MPI_Gatherv",
                  Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, false, -1));
}
int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Igatherv", request,
                     Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, false, -1));
}
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking(comm, "MPI_Allgather",
                  Gatherv(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, 0, true, recvcount));
}
int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iallgather", request,
                     Gatherv(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvtype, 0, true, recvcount));
}
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking(comm, "MPI_Allgatherv",
                  Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, 0, true, -1));
}
int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iallgatherv", request,
                     Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, 0, true, -1));
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking(comm, "MPI_Scatter",
                  Scatterv(sendbuf, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, sendcount));
}
int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iscatter", request,
                     Scatterv(sendbuf, nullptr, nullptr, sendtype, recvbuf, recvcount, recvtype, root, sendcount));
}
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return Blocking(comm, "MPI_Scatterv",
                  Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, -1));
}
int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iscatterv", request,
                     Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, -1));
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking(
      comm, "MPI_Alltoall",
      Alltoallv(sendbuf, nullptr, nullptr, sendtype, recvbuf, nullptr, nullptr, recvtype, sendcount, recvcount));
}
int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(
      comm, "MPI_Ialltoall", request,
      Alltoallv(sendbuf, nullptr, nullptr, sendtype, recvbuf, nullptr, nullptr, recvtype, sendcount, recvcount));
}
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return Blocking(comm, "MPI_Alltoallv",
                  Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, -1, -1));
}
int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return Nonblocking(comm, "MPI_Ialltoallv", request,
                     Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, -1, -1));
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm) {
  return Blocking(comm, "MPI_Reduce_scatter", ReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, -1));
}
int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Ireduce_scatter", request,
                     ReduceScatter(sendbuf, recvbuf, recvcounts, datatype, op, -1));
}
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
  return Blocking(comm, "MPI_Reduce_scatter_block", ReduceScatter(sendbuf, recvbuf, nullptr, datatype, op, recvcount));
}
int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return Nonblocking(comm, "MPI_Ireduce_scatter_block", request,
                     ReduceScatter(sendbuf, recvbuf, nullptr, datatype, op, recvcount));
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking(comm, "MPI_Scan", Scan(sendbuf, recvbuf, count, datatype, op, false));
}
int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iscan", request, Scan(sendbuf, recvbuf, count, datatype, op, false));
}
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return Blocking(comm, "MPI_Exscan", Scan(sendbuf, recvbuf, count, datatype, op, true));
}
int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return Nonblocking(comm, "MPI_Iexscan", request, Scan(sendbuf, recvbuf, count, datatype, op, true));
}

}  // extern "C"
