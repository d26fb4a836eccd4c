// CommColl: the collective state one communicator owns — its RuntimeLink
// (coll_link.h) and, from its first ring/tree collective on, its
// coll::HostColl (coll/host/host_coll.h), made through the Context's
// HostCollFactory; its GPU executor and its stream-ordered GPU
// point-to-point (coll/gpu), each made on first use. It is made by the communicator's first collective and
// destroyed with the communicator (grCommFree) or by grFinalize, before the
// engine goes away. The HostColl is destroyed before the link it uses.
//
// Thread safety: as MPI, collectives on one communicator are issued by one
// thread at a time, in the same order on every rank.
#ifndef GPURUN_RUNTIME_COMM_COLL_H_
#define GPURUN_RUNTIME_COMM_COLL_H_

#include <memory>
#include <mutex>
#include <span>

#include "coll/host/host_coll.h"
#if GPURUN_HAVE_GPU_COLL
#include "coll/gpu/gpu_coll.h"
#include "coll/gpu/stream_p2p.h"
#endif
#include "runtime/base/status.h"
#include "runtime/coll_link.h"
#include "runtime/comm.h"

namespace gpurun {

class CommColl {
 public:
  explicit CommColl(grComm& comm) : comm_(comm), link_(comm) {}

  RuntimeLink& link() { return link_; }
  // The communicator's HostColl, made on first use (not collective).
  StatusOr<coll::HostColl*> host();
  // The HostColl if made already, else null (the hot path of RunHostColl).
  coll::HostColl* host_if_made() const { return host_.get(); }
#if GPURUN_HAVE_GPU_COLL
  // The communicator's GPU executor on CUDA device `device`, made on first
  // use (not collective); a later call with buffers on another GPU is
  // InvalidUsage.
  StatusOr<coll::GpuColl*> gpu(int device);
  // The communicator's stream-ordered point-to-point on GPU `device`, made
  // on first use (not collective); another GPU later is InvalidUsage.
  StatusOr<coll::StreamP2p*> stream_p2p(int device);
  // The same for the stream-ordered point-to-point collectives: pair
  // connections of their own, so their messages never meet the program's.
  StatusOr<coll::StreamP2p*> stream_coll_p2p(int device);
#endif

 private:
  grComm& comm_;
  RuntimeLink link_;
  std::unique_ptr<coll::HostColl> host_;  // after link_: destroyed first
#if GPURUN_HAVE_GPU_COLL
  std::unique_ptr<coll::GpuColl> gpu_;  // after link_: destroyed first
  std::mutex stream_p2p_mu_;            // several threads may send at once
  std::unique_ptr<coll::StreamP2p> stream_p2p_;
  std::unique_ptr<coll::StreamP2p> stream_coll_p2p_;  // the point-to-point collectives' own
#endif
};

// The collective state of `comm`, made on first use.
CommColl& CollOf(grComm& comm);

// Runs a validated ring/tree collective on comm's HostColl (made on first use).
Status RunHostCollFirst(grComm& comm, const coll::CollCall& call);
inline Status RunHostColl(grComm& comm, const coll::CollCall& call) {
  if (comm.coll != nullptr) [[likely]] {
    if (coll::HostColl* host = comm.coll->host_if_made()) [[likely]]
      return host->Run(call);
  }
  return RunHostCollFirst(comm, call);
}

// Runs a validated ring/tree collective whose buffers are device memory of
// GPU `device` on comm's GpuColl; Unsupported in a build without the GPU path.
Status RunGpuColl(grComm& comm, const coll::CollCall& call, int device, grStream_t stream);
// The same for consecutive calls of a group, fused where they may be
// (coll::GpuColl::RunGroup).
Status RunGpuCollGroup(grComm& comm, std::span<const coll::CollCall> calls, int device, grStream_t stream);

// Returns once every rank of comm has entered it (see comm_coll.cc for how).
Status Barrier(grComm& comm);

// A barrier on `stream`, on the GPU that is current (cudaGetDevice): returns
// at once; work queued after it on the stream starts once every rank's
// stream reached it (coll::GpuColl::Barrier). Unsupported without a GPU path.
Status StreamBarrier(grComm& comm, grStream_t stream);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COMM_COLL_H_
