// C API: the ring/tree collectives and the barrier (gpurun.h). Each call
// checks the communicator, then its arguments (coll_args.h), then the stream,
// before anything runs; then the communicator's HostColl or GpuColl runs it
// where its buffers are (coll_placed.h). Every error names the C call.
#include "gpurun/gpurun.h"
#include "runtime/api_coll_run.h"
#include "runtime/buffer_place.h"
#include "runtime/coll_args.h"
#include "runtime/coll_args_quick.h"
#include "runtime/coll_placed.h"
#include "runtime/comm_coll.h"
#include "runtime/context.h"
#include "runtime/group.h"

namespace gpurun {
namespace {

// Checks the communicator, then the arguments with `check(comm)` (a
// StatusOr<coll::CollCall>), then where the buffers are, and runs the call.
// RunCollective's own stream check is for host-only calls: here the stream
// is checked with the buffers (PlaceCollective), so it gets the host stream.
template <typename Check>
grResult_t RunChecked(const char* what, grComm_t comm, grStream_t stream, Check&& check) {
  // Inside a group: checked now, run at grGroupEnd (group.h).
  if (group::Active()) [[unlikely]] {
    return RunCollective(what, comm, GR_STREAM_HOST, check, [stream](grComm& c, const coll::CollCall& call) {
      group::AddRingTree(c, call, stream);
      return OkStatus();
    });
  }
  return RunCollective(what, comm, GR_STREAM_HOST, check,
                       [stream](grComm& c, const coll::CollCall& call) { return RunPlaced(c, call, stream); });
}

// The same, hot path first: a live communicator, the host stream, a process
// that cannot hold device memory (buffer_place.h) and arguments that pass
// `quick(comm, &call)` (coll_args_quick.h) run without building a Status;
// anything else takes RunChecked's full checks, in their order, which say
// what is wrong.
template <typename Quick, typename Check>
grResult_t RunRingTree(const char* what, grComm_t comm, grStream_t stream, Quick&& quick, Check&& check) {
  Context* ctx = CurrentContext();
  coll::CollCall call;
  if (ctx != nullptr && comm != nullptr && stream == GR_STREAM_HOST && !DeviceMemoryPossible() && ctx->IsLive(comm) &&
      !group::Active() && quick(*comm, &call)) [[likely]] {
    const Status status = RunHostColl(*comm, call);
    if (status.ok()) [[likely]]
      return ToResult(status);
    return ToResult(Named(status, what));
  }
  return RunChecked(what, comm, stream, check);
}

}  // namespace
}  // namespace gpurun

using gpurun::RunChecked;
using gpurun::RunRingTree;
using Comm = const grComm&;

extern "C" grResult_t grBarrier(grComm_t comm, grStream_t stream) {
  // No arguments but the communicator: an empty check. With a stream, a
  // stream-ordered barrier on the current CUDA device (comm_coll.h).
  return gpurun::RunCollective(
      "grBarrier", comm, GR_STREAM_HOST, [](Comm) -> gpurun::StatusOr<bool> { return true; },
      [stream](grComm& c, bool) {
        auto run = [&c, stream] {
          return stream == GR_STREAM_HOST ? gpurun::Barrier(c) : gpurun::StreamBarrier(c, stream);
        };
        if (!gpurun::group::Active()) return run();
        gpurun::group::AddCollective(run);
        return gpurun::OkStatus();
      });
}

extern "C" grResult_t grBcast(void* buf, size_t count, grDataType_t type, int root, grComm_t comm, grStream_t stream) {
  return RunRingTree(
      "grBcast", comm, stream,
      [&](Comm c, gpurun::coll::CollCall* call) { return gpurun::QuickBcast(c, buf, count, type, root, call); },
      [&](Comm c) { return gpurun::CheckBcast(c, buf, count, type, root); });
}

extern "C" grResult_t grBroadcast(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root,
                                  grComm_t comm, grStream_t stream) {
  return RunRingTree(
      "grBroadcast", comm, stream,
      [&](Comm c, gpurun::coll::CollCall* call) {
        return gpurun::QuickBroadcast(c, sendbuf, recvbuf, count, type, root, call);
      },
      [&](Comm c) { return gpurun::CheckBroadcast(c, sendbuf, recvbuf, count, type, root); });
}

extern "C" grResult_t grReduce(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grRedOp_t op,
                               int root, grComm_t comm, grStream_t stream) {
  return RunRingTree(
      "grReduce", comm, stream,
      [&](Comm c, gpurun::coll::CollCall* call) {
        return gpurun::QuickReduce(c, sendbuf, recvbuf, count, type, op, root, call);
      },
      [&](Comm c) { return gpurun::CheckReduce(c, sendbuf, recvbuf, count, type, op, root); });
}

extern "C" grResult_t grAllreduce(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grRedOp_t op,
                                  grComm_t comm, grStream_t stream) {
  return RunRingTree(
      "grAllreduce", comm, stream,
      [&](Comm, gpurun::coll::CollCall* call) {
        return gpurun::QuickAllreduce(sendbuf, recvbuf, count, type, op, call);
      },
      [&](Comm c) { return gpurun::CheckAllreduce(c, sendbuf, recvbuf, count, type, op); });
}

extern "C" grResult_t grAllgather(const void* sendbuf, void* recvbuf, size_t sendcount, grDataType_t type,
                                  grComm_t comm, grStream_t stream) {
  return RunChecked("grAllgather", comm, stream,
                    [&](Comm c) { return gpurun::CheckAllgather(c, sendbuf, recvbuf, sendcount, type); });
}

extern "C" grResult_t grReduceScatter(const void* sendbuf, void* recvbuf, size_t recvcount, grDataType_t type,
                                      grRedOp_t op, grComm_t comm, grStream_t stream) {
  return RunChecked("grReduceScatter", comm, stream,
                    [&](Comm c) { return gpurun::CheckReduceScatter(c, sendbuf, recvbuf, recvcount, type, op); });
}
