// GpuNetProxy: the NET connections of the GPU ring across hosts — NCCL's
// NET transport and proxy thread for device buffers (digest §8-9), over
// Debian's UCX, which has no CUDA support: the kernels stage every step
// through host memory they map, and the proxy sends it from there.
//
// A NET connection has memory on EACH side, host memory its GPU maps (the
// caller allocates it: cudaHostAlloc in ring_connectors.cc, plain memory in
// the tests), laid out as GpuNetLayout says: a tail and a head counter on
// their own 128-byte lines, kFifoSteps step-size words, a Simple FIFO, then
// an LL FIFO. The kernels use it as their side of any connection
// (dev_launch.h), with one addition on the sending side:
//   sending kernel    waits for head (a free slot), writes the step into
//                     its local Simple or LL slot, records the step's wire
//                     bytes (kNetStepLL set for LL) and posts tail — LL
//                     steps too;
//   receiving kernel  waits for tail (Simple) or for the LL lines' flags in
//                     its local FIFO, and releases the slot through head.
// The proxy thread moves the steps between the two sides. For a sending
// connection it sends each posted step, in order, at most kFifoSteps in
// flight, as one tagged UCX message from its protocol's slot, and posts
// head when UCX is done with the slot. For a receiving connection it keeps
// a receive posted into the Simple slot of every step the kernel has room
// for (steps before head + kFifoSteps and, since the kernel releases an LL
// step without lines before it arrives, before the arrived ones +
// kFifoSteps); when step s arrives (in order) it posts tail,
// after copying an LL step's lines into the LL slot with 8-byte atomic
// stores: a kernel polling flags must never see half of a line's 8-byte
// half, and a UCX receive promises no store width. The tag is the edge
// (channel), the sending rank, the step's low 32 bits, and the LL bit,
// which the receive ignores (tag mask) and reads back. A point-to-point
// edge (GpuNetEdge::p2p) carries each step's header as a second message,
// tagged with a header bit, into the receiving side's header ring.
//
// The thread polls without end: spinning while steps move or for kSpin
// after a Wake() (GpuColl calls it before each launch), then sleeping,
// backing off to kMaxSleep (p2p::Backoff). A step of a CUDA graph replay,
// which calls no Wake, may so wait up to a sleep before it leaves.
//
// Failure: a send or receive that fails, or the endpoint of a connection's
// peer failing (for a sending connection: once it has a step to move; for a
// receiving one: after kGoneIdlePasses passes in a row that moved nothing),
// records the error naming the peer (failure())
// and sets the kernels' abort word, so their waits end. After Quiesce()
// (called once this rank's kernels ended, before GpuColl's teardown
// barrier: a peer past it may close before this rank runs on) a peer
// closing is expected and fails nothing.
//
// LL128 never runs on NET connections: a 128-byte line must arrive whole,
// which a UCX message does not promise (the ring refuses LL128 there).
#ifndef GPURUN_COLL_HOST_GPU_NET_PROXY_H_
#define GPURUN_COLL_HOST_GPU_NET_PROXY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "coll/host/comm_link.h"
#include "p2p/backoff.h"
#include "p2p/ucx/ucx_net.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Where things are in one NET connection's memory (one side of it).
struct GpuNetLayout {
  static constexpr uint64_t kTail = 0;       // uint64_t: steps posted (send: by the kernel; recv: by the proxy)
  static constexpr uint64_t kHead = 128;     // uint64_t: steps released (send: by the proxy; recv: by the kernel)
  static constexpr uint64_t kSizes = 256;    // uint32_t[kFifoSteps]: each step's wire bytes (send side)
  static constexpr uint64_t kHeaders = 384;  // a point-to-point edge's kFifoSteps step headers
  static constexpr uint64_t kHeaderBytes = 16;
  static constexpr uint64_t kFifo = 512;  // the Simple FIFO, then the LL FIFO
  uint64_t buffer_bytes = 0;              // Simple FIFO bytes
  uint64_t ll_buffer_bytes = 0;           // LL FIFO bytes (0 on a point-to-point edge)

  uint64_t LLFifo() const { return kFifo + buffer_bytes; }
  uint64_t Bytes() const { return LLFifo() + ll_buffer_bytes; }
};

// One side of one NET connection.
struct GpuNetEdge {
  int peer = -1;            // the rank at the other side
  bool send = false;        // this side sends
  uint32_t edge = 0;        // the connection's number between the two ranks (the channel), < 256
  uint8_t* base = nullptr;  // its memory (GpuNetLayout), kept alive by the caller while it is added
  GpuNetLayout layout;
  uint64_t first_step = 0;      // where its steps start (GPURUN_FIRST_STEP); its counters must say so already
  const void* owner = nullptr;  // RemoveOwner's key
  // A stream-ordered point-to-point edge (coll/gpu/p2p_connection.h): no LL
  // FIFO; each step is its Simple data and its kHeaderBytes header (the
  // message's header, read by the receiving kernel at a message's first
  // step), sent as two messages and complete when both are.
  bool p2p = false;
};

// Whether the GPU path reaches `peer` (another rank) over NET: it is on
// another host, or GPURUN_COLL_NET=always puts every hop there. Both ranks
// of a pair answer alike.
bool IsNetPeer(CommLink& link, int peer);

class GpuNetProxy {
 public:
  static constexpr int kGoneIdlePasses = 4;
  static constexpr uint32_t kMaxEdges = 256;
  static constexpr int kMaxRanks = 1 << 22;  // the tag's sender field

  // Collective over the link's ranks (all-gathers the UCX worker
  // addresses). `abort`: the kernels' abort word, set on a failure.
  static StatusOr<std::unique_ptr<GpuNetProxy>> Create(CommLink& link, uint32_t* abort);
  // Not collective: no endpoints yet; pairs swap Address() and Connect.
  static StatusOr<std::unique_ptr<GpuNetProxy>> CreateUnconnected(CommLink& link, uint32_t* abort);
  std::vector<std::byte> Address();
  // An endpoint to `peer` from its Address() (no-op when there is one).
  Status Connect(int peer, const std::vector<std::byte>& address);
  // Stop().
  ~GpuNetProxy();
  GpuNetProxy(const GpuNetProxy&) = delete;
  GpuNetProxy& operator=(const GpuNetProxy&) = delete;

  // Starts moving `edge` (not collective: every endpoint exists from
  // Create). InvalidArgument for a layout whose LL step is larger than its
  // Simple step (an LL step arrives in the Simple slot) or an edge number
  // out of range.
  Status AddEdge(const GpuNetEdge& edge);
  // Stops moving the edges added with `owner` (cancelling their UCX
  // operations), so their memory can go.
  void RemoveOwner(const void* owner);

  // A launch is coming: spin from now.
  void Wake() { wakes_.fetch_add(1, std::memory_order_release); }
  // This rank's kernels ended (teardown): peers closing fail nothing now.
  void Quiesce() { quiet_.store(true, std::memory_order_release); }
  // OkStatus, or the first failure (naming the peer).
  Status failure() const;
  // Ends the thread, cancels what is in flight, closes UCX. Idempotent.
  void Stop();

 private:
  struct Moving;

  GpuNetProxy(CommLink& link, uint32_t* abort);
  void Run();
  bool PassLocked();
  void CancelOps(Moving& m);
  bool MoveSend(Moving& m);
  bool MoveRecv(Moving& m);
  // Whether both of step `step`'s operations (the header's only on a
  // point-to-point edge) completed; false with the edge failed on an error.
  bool StepDone(Moving& m, uint64_t step, bool* done);
  void Fail(Moving& m, const Status& why);

  CommLink& link_;
  uint32_t* abort_;
  std::unique_ptr<p2p::UcxNet> net_;
  std::mutex mu_;  // net_, edges_: the thread's passes, AddEdge, RemoveOwner, Stop
  std::vector<std::unique_ptr<Moving>> edges_;
  mutable std::mutex failure_mu_;
  Status failure_;
  std::atomic<uint64_t> wakes_{0};
  std::atomic<bool> quiet_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_GPU_NET_PROXY_H_
