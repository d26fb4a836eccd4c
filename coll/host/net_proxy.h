// NetProxy: the NET connectors of one HostColl (NCCL's NET transport and
// proxy progress thread, digest §8-9, for host buffers).
//
// A NET edge has a NetFifo on each side, in the process's own memory: a
// FifoHeader (head, tail step counters, as a shared-memory FIFO) and
// kFifoSteps slots. The executor uses it as it uses a shared-memory FIFO:
//   sender    waits until its local head shows the slot free, writes the
//             step into its local slot (LL: lines with flags, contiguous;
//             Simple: the data), records the step's byte count in sizes[]
//             and posts tail;
//   receiver  waits until its local tail passes the step, reads the slot,
//             posts head.
// The proxy moves the steps: for each send FIFO it sends every published
// step to the peer as one tagged UCX message (steps in order, at most
// kFifoSteps in flight) and posts head when UCX is done with the slot; for
// each receive FIFO it keeps a receive posted for every free slot (step s
// into slot s % kFifoSteps, posted once the executor released step s -
// kFifoSteps) and posts tail as they complete in order. One message per step,
// empty ones too, so both sides count steps alike. The tag is the edge
// (group, edge code, sender rank) and the step's low 32 bits, so a step can
// only land in its own slot.
//
// Who runs the proxy: one thread at a time, so that a rank keeps one
// thread busy (a host may have fewer cores than ranks and proxies). Inside a
// collective call (Enter / Leave, from HostColl) the executor runs every
// pass itself: when it has published a step (Kick), while it waits on a NET
// FIFO (Poll), and every kPollsPerCheck polls of its other waits (a shared-
// memory edge of the same call: a peer's send may need this side's UCX
// progress to complete). The progress thread (started with the first NET
// edge) sleeps on a condition variable meanwhile; Leave wakes it only when
// a published step has not been sent yet (a large step that TCP takes in
// parts, or one a busy lock kept from being posted), and it then runs
// passes, spinning and backing off with p2p::Backoff, until every published
// step has been sent or the executor enters a call again. Receives move
// only inside calls: a step arriving between calls waits in UCX (or in the
// socket) for the call that reads it.
//
// Failure: a send or receive that fails, or the endpoint of the FIFO's peer
// failing, marks that FIFO failed with the error (naming the peer); the
// executor's waits see it. A receive FIFO outlives its peer's endpoint while
// steps may still arrive (a peer that ended normally after its sends
// completed locally: they wait in UCX until this side posts receives).
// Stop() (the destructor, called by the thread
// that runs the collectives) ends the thread, then sends what the executor
// published but the proxy had not yet sent (bounded by GPURUN_TIMEOUT and 30
// s, skipping peers that failed or that CommLink::CheckPeer reports dead),
// cancels the posted receives and closes UCX.
//
// LL128 never runs on NET edges (ConnGroup refuses it): its readiness is a
// flag per 128-byte line, which relies on lines landing whole and in order;
// the proxy's messages give no such guarantee per line.
#ifndef GPURUN_COLL_HOST_NET_PROXY_H_
#define GPURUN_COLL_HOST_NET_PROXY_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coll/host/comm_link.h"
#include "coll/host/connector.h"
#include "coll/tuner/host_model.h"
#include "p2p/backoff.h"
#include "p2p/ucx/ucx_net.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Why a forced LL128 across hosts is an error (tuner, HostColl, ConnGroup).
inline constexpr const char* kLL128NetReason = kHostLL128NetReason;

// The executor's side of one NET edge.
struct NetFifo {
  FifoHeader header;  // send: head = steps sent (credit), tail = published; recv: head = released, tail = received
  uint32_t sizes[kFifoSteps] = {};  // bytes of each step's message (send: the executor's, recv: what arrived)
  std::atomic<bool> failed{false};  // set (release) after `error`
  Status error;
  int peer = -1;
  bool send = false;
  uint64_t id = 0;  // the tag's upper half
  uint64_t step_bytes = 0;
  std::unique_ptr<std::byte[]> buffer;  // kFifoSteps slots of step_bytes

  std::byte* Slot(uint64_t step) { return buffer.get() + (step % kFifoSteps) * step_bytes; }
};

class NetProxy {
 public:
  // Collective over the link's ranks (all-gathers the UCX worker addresses).
  static StatusOr<std::unique_ptr<NetProxy>> Create(CommLink& link, double timeout_s, p2p::Backoff::Policy policy);
  ~NetProxy();  // Stop()
  NetProxy(const NetProxy&) = delete;
  NetProxy& operator=(const NetProxy&) = delete;

  // The tag half naming the edge (group, edge code 0..7, sending rank).
  static uint64_t EdgeId(int group, int code, int sender) {
    return static_cast<uint64_t>(group) << 23 | static_cast<uint64_t>(code) << 20 | static_cast<uint64_t>(sender);
  }

  // A FIFO for an edge to (`send`) or from `peer`, of `buffer_bytes`
  // (kFifoSteps slots), that the proxy starts moving at once. Not collective
  // (the endpoint to every peer exists from Create). The proxy owns it.
  // Its step counters start at `first_step` (GPURUN_FIRST_STEP) on both sides.
  StatusOr<NetFifo*> AddFifo(int peer, bool send, uint64_t id, uint64_t buffer_bytes, uint64_t first_step = 0);

  // The executor published a step: run a pass now unless another thread is
  // running one (it will see the step).
  void Kick() {
    if (mu_.try_lock()) {
      PassLocked();
      mu_.unlock();
    }
  }
  // From a wait on a NET FIFO: the same.
  void Poll() { Kick(); }

  // The executor starts / ends a collective call: the thread leaves the
  // passes to it from Enter on; Leave hands them back to the thread if a
  // published step has not been sent yet. Enter and Leave alternate.
  void Enter() { inside_.store(true, std::memory_order_release); }
  void Leave();

  // Enter for a scope (a collective call), Leave at its end.
  class Call {
   public:
    explicit Call(NetProxy* proxy) : proxy_(proxy) {
      if (proxy_ != nullptr) proxy_->Enter();
    }
    ~Call() {
      if (proxy_ != nullptr) proxy_->Leave();
    }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    NetProxy* proxy_;
  };

  // Ends the thread, flushes what was published, cancels receives, closes
  // UCX. Idempotent.
  void Stop();

 private:
  struct Moving;  // proxy-side cursors of one FIFO

  NetProxy(CommLink& link, double timeout_s, p2p::Backoff::Policy policy);
  void Run();
  // One pass over every FIFO and the worker; true when anything moved.
  bool PassLocked();
  bool MoveSend(Moving& m);
  bool MoveRecv(Moving& m);
  bool MayStillArrive(Moving& m, bool moved);  // a receive FIFO whose peer's endpoint failed
  void Fail(Moving& m, const Status& why);
  // Whether every published step of every live send FIFO was sent.
  bool SendsDrained() const;

  CommLink& link_;
  double timeout_s_;
  p2p::Backoff::Policy policy_;
  std::unique_ptr<p2p::UcxNet> net_;
  std::mutex mu_;  // net_, fifos_: the thread's passes, Kick/Poll, AddFifo, Stop
  std::vector<std::unique_ptr<Moving>> fifos_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> inside_{false};  // the executor is in a collective call (Enter .. Leave)
  // The thread sleeps on wake_cv_ until stop_, or until Leave counted a
  // hand-over (handovers_) that it has not served, with the executor outside.
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  std::atomic<uint64_t> handovers_{0};
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_NET_PROXY_H_
