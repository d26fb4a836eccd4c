// The point-to-point collectives (coll_p2p.h) with a real stream on GPU
// buffers: stream-ordered, as NCCL's grouped ncclSend/ncclRecv. Each step is
// one call of the communicator's coll::StreamP2p for collectives (a set of
// pair connections of its own, so their messages never meet the program's
// stream-ordered sends); the call returns once everything is enqueued.
// Schedules as coll_p2p.h: alltoall(v) and allgatherv pairwise (step k: to
// rank + k, from rank - k; in-place alltoall with partner (k - rank) mod n
// through a scratch copy of the outgoing block), gather(v)/scatter(v) linear
// at the root in rank order; the block to itself is a cudaMemcpyAsync on
// the stream. A message larger than its block is reported as grTruncated by
// the communicator's next stream-ordered collective of this kind (the
// receive has no status).
#ifndef GPURUN_RUNTIME_COLL_P2P_STREAM_H_
#define GPURUN_RUNTIME_COLL_P2P_STREAM_H_

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/coll_link.h"
#include "runtime/coll_p2p.h"

namespace gpurun {

// The stream-ordered engine and where the call runs.
struct StreamTarget {
  void* p2p;  // coll::StreamP2p* (opaque here: builds without CUDA have none)
  int device;
  grStream_t stream;
};

Status StreamAlltoallv(RuntimeLink& link, const StreamTarget& t, const AlltoallvCall& call);
Status StreamGatherv(RuntimeLink& link, const StreamTarget& t, const GathervCall& call);
Status StreamScatterv(RuntimeLink& link, const StreamTarget& t, const ScattervCall& call);
Status StreamAllgatherv(RuntimeLink& link, const StreamTarget& t, const AllgathervCall& call);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_P2P_STREAM_H_
