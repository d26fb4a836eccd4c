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
// Who runs the proxy: the executor runs a pass itself when it has published
// a step (Kick) and while it waits on a NET FIFO (Poll), and a progress
// thread (started with the first NET edge) runs them whenever no pass ran
// for kIdleBeforeThreadNs: while the executor reduces a large chunk, and
// between calls (a peer's rendezvous must not wait for this rank's next
// collective). The thread polls with p2p::Backoff (spinning after activity,
// then sleeping up to GPURUN_PROGRESS_MAX_SLEEP). Whoever holds the proxy's
// lock moves the steps; the thread keeps off it while the executor polls,
// because on a host with fewer cores than threads two threads taking turns
// at one lock mostly wait for each other to be scheduled.
//
// Failure: a send or receive that fails, or the endpoint of the FIFO's peer
// failing, marks that FIFO failed with the error (naming the peer); the
// executor's waits see it. Stop() (the destructor, called by the thread
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
  StatusOr<NetFifo*> AddFifo(int peer, bool send, uint64_t id, uint64_t buffer_bytes);

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
  void Fail(Moving& m, const Status& why);
  // Whether every published step of every live send FIFO was sent.
  bool SendsDrained() const;

  static uint64_t NowNs();
  // The thread runs a pass only when none ran for this long.
  static constexpr uint64_t kIdleBeforeThreadNs = 20'000;

  CommLink& link_;
  double timeout_s_;
  p2p::Backoff::Policy policy_;
  std::unique_ptr<p2p::UcxNet> net_;
  std::mutex mu_;  // net_, fifos_: the thread's passes, Kick/Poll, AddFifo, Stop
  std::vector<std::unique_ptr<Moving>> fifos_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> last_pass_ns_{0};  // when a pass last started (steady clock)
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_NET_PROXY_H_
