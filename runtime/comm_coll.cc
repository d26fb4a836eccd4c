// A communicator's collective state (see comm_coll.h).
#include "runtime/comm_coll.h"

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

CommColl& CollOf(grComm& comm) {
  if (comm.coll == nullptr) comm.coll.reset(new CommColl(comm));
  return *comm.coll;
}

Status RunHostCollFirst(grComm& comm, const coll::CollCall& call) {
  GR_ASSIGN_OR_RETURN(coll::HostColl * host, CollOf(comm).host());
  return host->Run(call);
}

Status Barrier(grComm& comm) {
  if (comm.size == 1) return OkStatus();
#if GPURUN_HAVE_HOST_COLL
  // A one-element allreduce through the host executor: every rank's 1 must
  // be in the sum, so no rank leaves before all have entered; its smallest
  // messages take the LL protocol, the fastest way to synchronise here.
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
  return DisseminationBarrier(CollOf(comm).link(), "grBarrier");
#endif
}

}  // namespace gpurun
