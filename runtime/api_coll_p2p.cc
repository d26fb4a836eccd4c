// C API: the collectives that run over point-to-point messages (gpurun.h):
// alltoall(v), allgatherv, gather(v), scatter(v), on host or device buffers.
// Same shape as api_coll.cc; the schedules are in coll_p2p.h.
#include "gpurun/gpurun.h"
#include "runtime/api_coll_run.h"
#include "runtime/buffer_place.h"
#include "runtime/coll_args.h"
#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_stream.h"
#include "runtime/comm_coll.h"
#include "runtime/group.h"

namespace {

using Comm = const grComm&;

// For a call checked by check(comm): with GR_STREAM_HOST, run(link, call,
// what) — the buffers may be host or device memory in any mix (the engine
// moves each message as its two buffers need) and the call completes on
// return; with a stream, the buffers must be on one GPU and
// run_stream(link, target, call) enqueues it (coll_p2p_stream.h).
template <typename Check, typename Run, typename RunStream>
grResult_t RunP2p(const char* what, std::initializer_list<const void*> buffers, grComm_t comm, grStream_t stream,
                  Check&& check, Run run, RunStream run_stream) {
  if (gpurun::group::Active()) [[unlikely]]
    return gpurun::ToResult(gpurun::group::Refuse(what));
  return gpurun::RunCollective(what, comm, GR_STREAM_HOST, check, [&](grComm& c, const auto& call) -> gpurun::Status {
    gpurun::CommColl& cc = gpurun::CollOf(c);
    if (stream == GR_STREAM_HOST) return run(cc.link(), call, what);
    GR_ASSIGN_OR_RETURN(const int device, gpurun::StreamDeviceOf(buffers, {"sendbuf", "recvbuf"}));
#if GPURUN_HAVE_GPU_COLL
    GR_ASSIGN_OR_RETURN(gpurun::coll::StreamP2p * p2p, cc.stream_coll_p2p(device));
    return run_stream(cc.link(), gpurun::StreamTarget{p2p, device, stream}, call);
#else
    (void)run_stream;
    (void)device;
    return gpurun::Unsupported("this build has no GPU path");
#endif
  });
}

}  // namespace

extern "C" grResult_t grAlltoall(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grComm_t comm,
                                 grStream_t stream) {
  return RunP2p(
      "grAlltoall", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckAlltoall(c, sendbuf, recvbuf, count, type); }, gpurun::Alltoallv,
      gpurun::StreamAlltoallv);
}

extern "C" grResult_t grAlltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls, void* recvbuf,
                                  const size_t* recvcounts, const size_t* rdispls, grDataType_t type, grComm_t comm,
                                  grStream_t stream) {
  return RunP2p(
      "grAlltoallv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) {
        return gpurun::CheckAlltoallv(c, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, type);
      },
      gpurun::Alltoallv, gpurun::StreamAlltoallv);
}

extern "C" grResult_t grAllgatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                   const size_t* displs, grDataType_t type, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grAllgatherv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckAllgatherv(c, sendbuf, sendcount, recvbuf, recvcounts, displs, type); },
      gpurun::Allgatherv, gpurun::StreamAllgatherv);
}

extern "C" grResult_t grGather(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root,
                               grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grGather", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckGather(c, sendbuf, recvbuf, count, type, root); }, gpurun::Gatherv,
      gpurun::StreamGatherv);
}

extern "C" grResult_t grGatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                const size_t* displs, grDataType_t type, int root, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grGatherv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckGatherv(c, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root); },
      gpurun::Gatherv, gpurun::StreamGatherv);
}

extern "C" grResult_t grScatter(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root,
                                grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grScatter", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckScatter(c, sendbuf, recvbuf, count, type, root); }, gpurun::Scatterv,
      gpurun::StreamScatterv);
}

extern "C" grResult_t grScatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs, void* recvbuf,
                                 size_t recvcount, grDataType_t type, int root, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grScatterv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckScatterv(c, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root); },
      gpurun::Scatterv, gpurun::StreamScatterv);
}
