// HostColl: one communicator's collective engine on host buffers. It owns
// the shared-memory connectors to its ring and tree neighbours (per channel
// and protocol, set up on first use), asks the tuner for (algorithm,
// protocol, channels) unless the call forces them, plans the call into work
// descriptors (coll/planner) and runs them in the calling thread.
//
// Run is not thread-safe: like MPI, collectives on one communicator are
// issued by one thread at a time, in the same order on every rank.
#ifndef GPURUN_COLL_HOST_HOST_COLL_H_
#define GPURUN_COLL_HOST_HOST_COLL_H_

#include <cstdint>
#include <memory>

#include "coll/coll_types.h"
#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// One ring/tree collective, as the API layer validated it. Counts are in
// elements. Buffers follow NCCL's in-place rules (gpurun.h); `send` may equal
// `recv` (in place). For AllGather `count` is per rank (recv holds size *
// count); for ReduceScatter `count` is per rank (send holds size * count).
// `root` matters for broadcast and reduce only.
struct CollCall {
  Func func = Func::kAllReduce;
  const void* send = nullptr;
  void* recv = nullptr;
  uint64_t count = 0;
  DataType type = DataType::kFloat32;
  RedOp op = RedOp::kSum;
  int root = 0;
};

class HostColl {
 public:
  // Not collective: connectors are made on first use, collectively.
  static StatusOr<std::unique_ptr<HostColl>> Create(CommLink& link);
  virtual ~HostColl() = default;

  // Runs `call` to completion. Errors: InvalidUsage when GPURUN_ALGO /
  // GPURUN_PROTO leave nothing for it; RemoteError / Timeout naming the
  // peer waited on.
  virtual Status Run(const CollCall& call) = 0;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_HOST_COLL_H_
