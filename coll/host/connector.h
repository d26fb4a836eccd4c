// The two ends of one directed edge (channel, algorithm, protocol) as the
// primitives see them.
//
// Same host: a FIFO of kFifoSteps slots in the RECEIVER's shared-memory
// segment, behind two StepCounters on their own 128-byte lines (FifoHeader):
// the sender publishes `tail` (Simple) or inline flags (LL, LL128), the
// receiver gives credit back through `head` (wire_format.h).
//
// Across hosts: each step (a Simple slice: slice_steps steps) travels as one
// point-to-point message through CommLink::Isend / Irecv on tag `tag`, from
// and into a staging copy of the FIFO layout. The sender keeps at most
// kFifoSteps messages in flight and completes them at the end of each work.
// The proxy-driven NET FIFOs (network buffers registered once, a proxy
// thread moving steps) come with the multi-node issue.
//
// `step` counts the steps this edge has carried over all calls so far; both
// ends advance it identically.
#ifndef GPURUN_COLL_HOST_CONNECTOR_H_
#define GPURUN_COLL_HOST_CONNECTOR_H_

#include <cstddef>
#include <cstdint>

#include "coll/host/comm_link.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

// Head of each FIFO in a segment; the slots follow.
struct FifoHeader {
  StepCounter head;  // steps the receiver released
  StepCounter tail;  // steps the sender published (Simple)
};
static_assert(sizeof(FifoHeader) == 256);

struct RecvConn {
  int peer = -1;
  bool net = false;
  int tag = 0;
  std::byte* buf = nullptr;  // FIFO slots (shm) or staging (net)
  FifoHeader* header = nullptr;
  uint64_t step = 0;
};

struct SendConn {
  int peer = -1;
  bool net = false;
  int tag = 0;
  std::byte* buf = nullptr;  // the receiver's FIFO slots (shm) or staging (net)
  FifoHeader* header = nullptr;
  uint64_t step = 0;
  // shm: the receiver's head as last read. The sender reads header->head
  // (a line the receiver writes every step, so each read is a cache miss)
  // only when this copy does not show the slot free.
  uint64_t head_seen = 0;
  LinkRequest* pending[kFifoSteps] = {};  // net: the message of each slot in flight
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_CONNECTOR_H_
