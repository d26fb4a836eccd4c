// The two ends of one directed edge (channel, algorithm, protocol) as the
// primitives see them.
//
// Same host: a FIFO of kFifoSteps slots in the RECEIVER's shared-memory
// segment, behind two StepCounters on their own 128-byte lines (FifoHeader):
// the sender publishes `tail` (Simple) or inline flags (LL, LL128), the
// receiver gives credit back through `head` (wire_format.h).
//
// Across hosts (NET): a FIFO of the same shape on EACH side, in the rank's
// own memory (net_proxy.h NetFifo), which `header` and `buf` then point at;
// the sender fills its local slot and posts tail (LL too: its lines are
// packed contiguously per slot, and readiness is the tail, not the flags),
// and the NET proxy moves each step to the receiver's FIFO over UCX, posting
// the sender's head when the slot is free again and the receiver's tail when
// the step arrived. LL128 never runs on NET edges.
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

struct NetFifo;  // net_proxy.h
class NetProxy;

// Head of each FIFO in a segment; the slots follow.
struct FifoHeader {
  StepCounter head;  // steps the receiver released
  StepCounter tail;  // steps the sender published (Simple)
};
static_assert(sizeof(FifoHeader) == 256);

struct RecvConn {
  int peer = -1;
  bool net = false;
  std::byte* buf = nullptr;  // FIFO slots (shm: this rank's segment; net: the local NetFifo)
  FifoHeader* header = nullptr;
  uint64_t step = 0;
  NetFifo* fifo = nullptr;  // net only
  NetProxy* proxy = nullptr;
};

struct SendConn {
  int peer = -1;
  bool net = false;
  std::byte* buf = nullptr;  // FIFO slots (shm: the receiver's segment; net: the local NetFifo)
  FifoHeader* header = nullptr;
  uint64_t step = 0;
  // The head as last read. The sender reads header->head (a line the
  // receiver or proxy writes every step, so each read is a cache miss) only
  // when this copy does not show the slot free.
  uint64_t head_seen = 0;
  NetFifo* fifo = nullptr;  // net only
  NetProxy* proxy = nullptr;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_CONNECTOR_H_
