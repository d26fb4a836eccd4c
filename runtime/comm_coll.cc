// A communicator's collective state (see comm_coll.h).
#include "runtime/comm_coll.h"

#include <mutex>

#include "runtime/buffer_place.h"
#include "runtime/coll_p2p.h"
#include "runtime/context.h"

namespace gpurun {

void CommCollDeleter::operator()(CommColl* coll) const { delete coll; }

StatusOr<coll::HostColl*> CommColl::host() {
  if (host_ == nullptr) {
    const Context::HostCollFactory& make = comm_.context->host_coll_factory();
    if (!make) return InternalError("no HostColl factory is installed");
    GR_ASSIGN_OR_RETURN(host_, make(link_));
    if (host_ == nullptr) return InternalError("the HostColl factory returned null");
  }
  return host_.get();
}

#if GPURUN_HAVE_GPU_COLL
StatusOr<coll::GpuColl*> CommColl::gpu(int device) {
  if (gpu_ == nullptr) {
    GR_ASSIGN_OR_RETURN(const coll::GpuCollOptions options, coll::LoadGpuCollOptions());
    GR_ASSIGN_OR_RETURN(gpu_, coll::GpuColl::Create(link_, device, options));
  }
  if (gpu_->device() != device) {
    return InvalidUsage("this communicator's GPU collectives run on GPU " + std::to_string(gpu_->device()) +
                        "; these buffers are on GPU " + std::to_string(device) +
                        " (one GPU per rank and communicator, as NCCL)");
  }
  return gpu_.get();
}

namespace {

// *p2p, made on first use with the two internal tags, on `device`.
StatusOr<coll::StreamP2p*> MadeStreamP2p(std::unique_ptr<coll::StreamP2p>& p2p, RuntimeLink& link, int device,
                                         int connect_tag, int close_tag) {
  if (p2p == nullptr) {
    GR_ASSIGN_OR_RETURN(const coll::StreamP2pOptions options, coll::LoadStreamP2pOptions(connect_tag, close_tag));
    GR_ASSIGN_OR_RETURN(p2p, coll::StreamP2p::Create(link, device, options));
  }
  if (p2p->device() != device) {
    return InvalidUsage("this communicator's stream-ordered point-to-point runs on GPU " +
                        std::to_string(p2p->device()) + "; these buffers are on GPU " + std::to_string(device) +
                        " (one GPU per rank and communicator, as NCCL)");
  }
  return p2p.get();
}

}  // namespace

StatusOr<coll::StreamP2p*> CommColl::stream_p2p(int device) {
  std::lock_guard<std::mutex> lock(stream_p2p_mu_);
  return MadeStreamP2p(stream_p2p_, link_, device, kTagP2pStreamConnect, kTagP2pStreamClose);
}

StatusOr<coll::StreamP2p*> CommColl::stream_coll_p2p(int device) {
  std::lock_guard<std::mutex> lock(stream_p2p_mu_);
  return MadeStreamP2p(stream_coll_p2p_, link_, device, kTagP2pStreamCollConnect, kTagP2pStreamCollClose);
}
#endif

Status RunGpuColl(grComm& comm, const coll::CollCall& call, int device, grStream_t stream) {
  return RunGpuCollGroup(comm, {&call, 1}, device, stream);
}

Status RunGpuCollGroup(grComm& comm, std::span<const coll::CollCall> calls, int device, grStream_t stream) {
#if GPURUN_HAVE_GPU_COLL
  GR_ASSIGN_OR_RETURN(coll::GpuColl * gpu, CollOf(comm).gpu(device));
  return gpu->RunGroup(calls, stream);
#else
  (void)comm;
  (void)calls;
  (void)device;
  (void)stream;
  return Unsupported("this build has no GPU collectives");
#endif
}

CommColl& CollOf(grComm& comm) {
  // Point-to-point calls of several threads may make it first.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (comm.coll == nullptr) comm.coll.reset(new CommColl(comm));
  return *comm.coll;
}

Status RunHostCollFirst(grComm& comm, const coll::CollCall& call) {
  GR_ASSIGN_OR_RETURN(coll::HostColl * host, CollOf(comm).host());
  return host->Run(call);
}

Status StreamBarrier(grComm& comm, grStream_t stream) {
  if (!DeviceMemoryPossible()) {
    return Unsupported(
        "a barrier on a stream orders GPU work, and this process has no CUDA driver (or this build "
        "no GPU path); pass GR_STREAM_HOST");
  }
  GR_ASSIGN_OR_RETURN(const int device, StreamDeviceOf({}, {}));
  if (comm.size == 1) return OkStatus();
#if GPURUN_HAVE_GPU_COLL
  GR_ASSIGN_OR_RETURN(coll::GpuColl * gpu, CollOf(comm).gpu(device));
  return gpu->Barrier(stream);
#else
  (void)device;
  (void)stream;
  return Unsupported("this build has no GPU path");
#endif
}

Status Barrier(grComm& comm) {
#if GPURUN_HAVE_HOST_COLL
  // A one-element allreduce through the host executor: every rank's 1 must
  // be in the sum, so no rank leaves before all have entered; its smallest
  // messages take the LL protocol, the fastest way to synchronise here. One
  // rank too, so a GPURUN_ALGO / GPURUN_PROTO the allreduce cannot honour
  // (twoshot with ll) is refused alike at every communicator size.
  const int32_t one = 1;
  int32_t sum = 0;
  coll::CollCall call;
  call.func = coll::Func::kAllReduce;
  call.send = &one;
  call.recv = &sum;
  call.count = 1;
  call.type = coll::DataType::kInt32;
  call.op = coll::RedOp::kSum;
  GR_RETURN_IF_ERROR(RunHostColl(comm, call));
  if (sum != comm.size) {
    return InternalError("barrier: the allreduce of one 1 per rank gave " + std::to_string(sum) + ", not " +
                         std::to_string(comm.size));
  }
  return OkStatus();
#else
  // Without the host executor: a dissemination barrier over point-to-point.
  if (comm.size == 1) return OkStatus();
  return DisseminationBarrier(CollOf(comm).link(), "grBarrier");
#endif
}

}  // namespace gpurun
