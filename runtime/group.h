// Groups (gpurun.h grGroupStart / grGroupEnd, NCCL's ncclGroupStart /
// ncclGroupEnd): per thread, a nesting depth and the calls made inside. While
// a group is open, grSend, grRecv, grSendrecv and the ring/tree collectives
// (grBarrier, grBcast, grBroadcast, grReduce, grAllreduce, grAllgather,
// grReduceScatter) check their communicator and are recorded; the outermost
// grGroupEnd runs them:
//  1. the collectives, in the order called: consecutive ring/tree ones of
//     one communicator and stream on device buffers of one GPU fused into
//     as few kernel launches as they may be (coll/gpu GpuColl::RunGroup:
//     one launch while the calls share an element type and operator and
//     none reads or writes what an earlier one of the launch writes); the
//     rest each as it would run alone;
//  2. the host (null-stream) sends and receives, all started as nonblocking
//     ones, then waited for together — so any pattern of them completes;
//  3. the stream-ordered sends and receives, per communicator and stream in
//     one kernel (coll/gpu StreamP2p::RunGroup), so they progress together.
// Arguments are checked when the group runs; buffers and statuses must stay
// valid until grGroupEnd returns (a status is filled when its stream gets
// past the receive, as outside groups). The first error stops the group and
// grGroupEnd returns it; a call that cannot be recorded (grIsend, grWait,
// the point-to-point collectives...) fails at once with InvalidUsage and the
// group, when it ends, runs nothing and says so.
#ifndef GPURUN_RUNTIME_GROUP_H_
#define GPURUN_RUNTIME_GROUP_H_

#include <functional>

#include "coll/host/host_coll.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/comm.h"

namespace gpurun::group {

namespace internal {
// The calling thread's group nesting depth. A trivial thread-local with the
// initial-exec model, so the check every call makes is one %fs-relative load
// (a thread_local State with a constructor went through __tls_get_addr and
// an initialisation wrapper: 70 instructions a call; issue 4). libgpurun is
// linked, not dlopen'ed, so static TLS fits it.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local int t_depth;
}  // namespace internal

// Whether the calling thread is inside a group.
inline bool Active() { return internal::t_depth > 0; }

Status Start();
Status End();

// A send or receive made inside a group (buffers as the call's).
struct P2pCall {
  grComm_t comm;
  bool send;
  void* buf;
  size_t count;
  grDataType_t type;
  int peer;
  int tag;
  grStatus_t* status;  // receives; may be GR_STATUS_IGNORE
  grStream_t stream;
};

// Record a call (the communicator checked live; the rest checked at End).
Status AddP2p(const P2pCall& call);
// Record a checked collective; `run` runs it at End.
void AddCollective(std::function<Status()> run);
// Record a checked ring/tree collective (run at End where its buffers are,
// fused with its neighbours where it may be: coll_placed.h).
void AddRingTree(grComm& comm, const coll::CollCall& call, grStream_t stream);
// A call that has no place in a group: InvalidUsage naming it, and the
// group is spoiled (End runs nothing).
Status Refuse(const char* what);

}  // namespace gpurun::group

#endif  // GPURUN_RUNTIME_GROUP_H_
