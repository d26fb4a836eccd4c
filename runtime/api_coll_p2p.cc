// C API: the collectives that run over point-to-point messages (gpurun.h):
// alltoall(v), allgatherv, gather(v), scatter(v), on host or device buffers.
// Same shape as api_coll.cc; the schedules are in coll_p2p.h.
#include "gpurun/gpurun.h"
#include "runtime/api_coll_run.h"
#include "runtime/buffer_place.h"
#include "runtime/coll_args.h"
#include "runtime/coll_p2p.h"
#include "runtime/comm_coll.h"

namespace {

using Comm = const grComm&;

// run(link, call, what) for a call checked by check(comm). The buffers may be
// host or device memory in any mix (the engine moves each message as its two
// buffers need); a stream needs them on a GPU and is waited for first
// (buffer_place.h), so the call completes on return either way.
template <typename Check, typename Run>
grResult_t RunP2p(const char* what, std::initializer_list<const void*> buffers, grComm_t comm, grStream_t stream,
                  Check&& check, Run run) {
  return gpurun::RunCollective(what, comm, GR_STREAM_HOST, check, [&](grComm& c, const auto& call) -> gpurun::Status {
    GR_RETURN_IF_ERROR(gpurun::OrderAfterStream(buffers, {"sendbuf", "recvbuf"}, stream));
    return run(gpurun::CollOf(c).link(), call, what);
  });
}

}  // namespace

extern "C" grResult_t grAlltoall(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grComm_t comm,
                                 grStream_t stream) {
  return RunP2p(
      "grAlltoall", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckAlltoall(c, sendbuf, recvbuf, count, type); }, gpurun::Alltoallv);
}

extern "C" grResult_t grAlltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls, void* recvbuf,
                                  const size_t* recvcounts, const size_t* rdispls, grDataType_t type, grComm_t comm,
                                  grStream_t stream) {
  return RunP2p(
      "grAlltoallv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) {
        return gpurun::CheckAlltoallv(c, sendbuf, sendcounts, sdispls, recvbuf, recvcounts, rdispls, type);
      },
      gpurun::Alltoallv);
}

extern "C" grResult_t grAllgatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                   const size_t* displs, grDataType_t type, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grAllgatherv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckAllgatherv(c, sendbuf, sendcount, recvbuf, recvcounts, displs, type); },
      gpurun::Allgatherv);
}

extern "C" grResult_t grGather(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root,
                               grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grGather", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckGather(c, sendbuf, recvbuf, count, type, root); }, gpurun::Gatherv);
}

extern "C" grResult_t grGatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                                const size_t* displs, grDataType_t type, int root, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grGatherv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckGatherv(c, sendbuf, sendcount, recvbuf, recvcounts, displs, type, root); },
      gpurun::Gatherv);
}

extern "C" grResult_t grScatter(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root,
                                grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grScatter", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckScatter(c, sendbuf, recvbuf, count, type, root); }, gpurun::Scatterv);
}

extern "C" grResult_t grScatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs, void* recvbuf,
                                 size_t recvcount, grDataType_t type, int root, grComm_t comm, grStream_t stream) {
  return RunP2p(
      "grScatterv", {sendbuf, recvbuf}, comm, stream,
      [&](Comm c) { return gpurun::CheckScatterv(c, sendbuf, sendcounts, displs, recvbuf, recvcount, type, root); },
      gpurun::Scatterv);
}
