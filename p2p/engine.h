// Engine: the point-to-point layer of one rank. It owns the wires (shm, ucx),
// routes each peer to one wire (GPURUN_P2P_TRANSPORT), and does MPI matching:
// posted-receive and unexpected-message queues per communicator context,
// wildcards, non-overtaking order per (source, tag, context), truncation
// reported in the status, never a memory overwrite. Messages to this rank
// itself are looped back by the engine (LoopbackWire).
//
// Blocking calls (Send, Recv, Wait, WaitAll, WaitAny, Probe) poll the wires
// without pause for GPURUN_PROGRESS_SPIN (longer when waiting for a large
// message, by the time copying it takes), then sleep between polls, from 1 us
// backing off up to GPURUN_PROGRESS_MAX_SLEEP (optionally yielding the core
// for GPURUN_PROGRESS_YIELD first; backoff.h), so a waiting rank answers
// within microseconds yet oversubscribed jobs still move. Each fails with
// grTimeout after GPURUN_TIMEOUT naming what it waited for, and with
// grRemoteError naming the peer when the peer died or aborted.
//
// Peer failure, from a wire's OnPeerFailed or from the engine's own
// PeerMonitor (same-host peers, see peer_monitor.h): pending receives from
// that rank, pending GR_ANY_SOURCE receives on contexts that include it,
// pending sends to it, and receives whose matched payload it was still
// delivering, complete with its error; so do later sends to it, receives from
// it that no already-arrived message satisfies, and GR_ANY_SOURCE receives and
// probes on contexts that include it.
//
// Device memory (GPU buffers of processes on one host): with a DeviceTransfer
// installed (SetDeviceTransfer), each send and receive buffer is classified,
// and device sends go through the rendezvous of device_transfer.h; any mix of
// host and device buffers on the two sides works. A device send to a peer
// that only the ucx wire reaches is Unsupported. Without one, every buffer is
// host memory.
//
// Thread safety: every public method may be called from any thread; the engine
// serialises them with one lock, released between the polls of a blocking
// call. Wires call the WireSink methods and completions only from inside
// Send, TrySend, Progress, Fetch and Shutdown, which the engine calls with
// the lock held; those callbacks therefore run with the lock held and do not
// take it.
#ifndef GPURUN_P2P_ENGINE_H_
#define GPURUN_P2P_ENGINE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurun/gpurun.h"
#include "p2p/device_transfer.h"
#include "p2p/fast_mutex.h"
#include "p2p/match_queue.h"
#include "p2p/peer_monitor.h"
#include "p2p/request_pool.h"
#include "p2p/wire.h"
#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

class Request;  // an outstanding send or receive, owned by the engine (request.h)

struct SendArgs {
  uint32_t context = 0;  // the communicator's matching context
  int source = 0;        // this rank's rank in the communicator
  int dest = 0;          // destination's rank in the communicator
  int dest_world = 0;    // destination's world rank (routes to a wire)
  int tag = 0;           // 0..kMaxTag
  const void* data = nullptr;
  size_t bytes = 0;
  const char* what = "send";  // the operation's name in error messages ("grIsend")
};

struct RecvArgs {
  uint32_t context = 0;
  int source = GR_ANY_SOURCE;  // rank in the communicator, or GR_ANY_SOURCE
  int source_world = -1;       // world rank of `source`, -1 for GR_ANY_SOURCE
  int tag = GR_ANY_TAG;
  void* data = nullptr;
  size_t capacity = 0;   // bytes available at data
  size_t type_size = 1;  // for grStatus_t::count
  const char* what = "receive";
};

class Engine : public WireSink {
 public:
  // Collective over the job: creates and connects the wires that
  // GPURUN_P2P_TRANSPORT and the peer table call for (transport_plan.h), and
  // watches same-host peers (peer_monitor.h). Logs each peer's wire at INFO/P2P.
  static StatusOr<std::unique_ptr<Engine>> Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers);
  // For tests: given wires, and for each world rank the index of the wire that
  // reaches it (-1 for this rank itself, whose messages the engine loops back).
  // With `peers` (indexed by world rank) the engine also watches same-host peers.
  static std::unique_ptr<Engine> CreateForTest(int world_rank, std::vector<std::unique_ptr<Wire>> wires,
                                               std::vector<int> wire_of_peer, const std::vector<PeerInfo>& peers = {});

  // Whether this rank shares its cores with other ranks of its host
  // (core_sharing.h), so that blocking waits spin only briefly (backoff.h).
  bool shares_cores() const { return shared_cores_; }

  // Shuts the wires down: unmatched messages are dropped, pending operations
  // complete with an error; requests never waited for are freed.
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Installs the device-memory mover (before any traffic; CUDA builds in a
  // process with the CUDA driver).
  void SetDeviceTransfer(std::unique_ptr<DeviceTransfer> transfer);

  // Declares a communicator context and its members (world ranks, indexed by
  // communicator rank) so that a member's death fails receives on it. Messages
  // that arrived for it before this call are kept and match as usual.
  Status AddContext(uint32_t context, std::vector<int> world_ranks);
  // Forgets a context (and drops its unmatched messages); InvalidUsage while
  // requests on it have not been completed by Wait/Test.
  Status RemoveContext(uint32_t context);

  // Start an operation; the returned request is owned by the engine until
  // Wait/Test/WaitAny/WaitAll frees it. Operation failures (a dead peer) are
  // reported by the request; an error return means no request was made.
  StatusOr<Request*> Isend(const SendArgs& args);
  StatusOr<Request*> Irecv(const RecvArgs& args);

  // Blocking send and receive: Isend/Irecv then Wait, with the same errors
  // and status, but without making a request when the message moves at once
  // (an eager send the wire takes at once; a receive that an arrived eager
  // message satisfies whole). `status` may be null.
  Status Send(const SendArgs& args);
  Status Recv(const RecvArgs& args, grStatus_t* status);
  // Isend, except that a send the wire takes at once (host data, an eager
  // slot free) makes no request: *request is then null, and the send is
  // complete. For callers that post a send and a receive to one peer and
  // cannot block in the send (the peer may be sending too).
  Status StartSend(const SendArgs& args, Request** request);

  // Synchronous-mode send (MPI_Issend): as Isend, but the request completes
  // only once a receive has matched the message (and the wire is done with
  // the buffer). The sender first sends a sync note (kFlagSyncNote) with the
  // send's id, then the message as usual; the receiving engine ties the note
  // to that next message from the sender and answers with a DeviceFin of the
  // id when a receive matches it. Needs a wire that carries flagged messages
  // (shm, loopback): a peer reached over ucx is Unsupported. GPU send buffers
  // take the device rendezvous, which completes at the receiver's pull already.
  StatusOr<Request*> Issend(const SendArgs& args);

  // Cancels a receive no message has matched yet: removes it from its posted
  // queue, frees it and sets *cancelled = true. A matched or completed receive,
  // or a send, is left alone (*cancelled = false): complete it with Wait/Test.
  Status Cancel(Request* request, bool* cancelled);

  // Whether `request` is a request of this engine not yet freed. Any pointer
  // value may be passed.
  bool IsLive(const Request* request) const;

  // Waits, fills *status (may be null), frees the request. Returns the
  // operation's error. On timeout the request is cancelled, freed and its
  // status says grTimeout. A send's status is EmptyStatus(error).
  Status Wait(Request* request, grStatus_t* status);
  // Never blocks; when done, as Wait and *done = true.
  Status Test(Request* request, bool* done, grStatus_t* status);
  // A list given to WaitAny/WaitAll must hold only nulls and live requests,
  // none twice; otherwise the call fails with InvalidArgument "WHAT:
  // requests[I] is not a live request (...)" or "WHAT: a request is listed
  // twice" before it waits for, frees or nulls anything.
  //
  // Waits for one of `requests` (nulls are skipped): sets *index to its
  // position, frees it, sets requests[*index] = nullptr, fills *status and
  // returns the operation's error; *index = -1 (and an empty status) if all
  // are null. A timeout cancels, frees and nulls every listed request, leaves
  // *index = -1 and returns grTimeout.
  Status WaitAny(std::span<Request*> requests, int* index, grStatus_t* status, const char* what = "WaitAny");
  // Waits for every request (nulls get EmptyStatus), frees them all and sets
  // them to null, fills statuses[i] (statuses may be null); returns the first
  // error in array order. One GPURUN_TIMEOUT bounds the whole call.
  Status WaitAll(std::span<Request*> requests, grStatus_t* statuses, const char* what = "WaitAll");
  // Probe (blocking) / Iprobe: fills *status of the first matching message
  // (bytes and count in bytes). `what` names the call in error messages.
  Status Probe(uint32_t context, int source, int tag, bool block, bool* found, grStatus_t* status,
               const char* what = "probe");

  // Drives progress once (as Test does) and returns why `world_peer` failed
  // (grRemoteError naming it) if it died or aborted, else OK. Never blocks;
  // cheap enough for a polling loop (the collectives' CommLink::CheckPeer).
  Status PeerFailure(int world_peer);

  // Cancels every pending request (grFinalize): each completes with `why`;
  // returns how many there were.
  int CancelAll(const Status& why);

  // Name of the wire that reaches `world_peer` ("shm", "ucx", "self").
  const char* WireFor(int world_peer) const;

  // WireSink.
  void OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) override;
  void OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) override;
  void OnPeerFailed(int world_peer, const Status& why) override;

 private:
  // Matching state of one context. `declared` is false for a context that so
  // far only received messages (its communicator is not created here yet).
  struct ContextState {
    bool declared = false;
    std::vector<int> members;  // world ranks by communicator rank
    MatchQueue queue;
  };

  Engine(int world_rank, std::vector<std::unique_ptr<Wire>> wires, std::vector<int> wire_of_peer,
         std::unique_ptr<PeerMonitor> monitor, bool shared_cores = false);

  using Lock = std::unique_lock<FastMutex>;

  class DevicePayload;  // a matched DeviceRts, pulled by Fetch (engine_device.cc)

  // Everything below runs with mu_ held.
  // engine.cc
  bool TrySendNow(const SendArgs& args);
  StatusOr<Request*> IsendLocked(const SendArgs& args, bool device);
  StatusOr<Request*> IrecvLocked(const RecvArgs& args, bool device);
  StatusOr<Request*> IssendLocked(const SendArgs& args);
  Request* NewRequest() { return pool_.Acquire(); }
  void Release(Request* request);
  void ReapLocked();
  bool IsLiveLocked(const Request* r) const { return pool_.InUse(r) && !r->released; }
  Wire* WireOf(int world_peer) const {
    const int index = world_peer == world_rank_ ? -1 : wire_of_peer_[world_peer];
    return index < 0 ? loopback_.get() : wires_[index].get();
  }
  // The state of `context`, created if new.
  ContextState& ContextOf(uint32_t context) {
    return last_context_ != nullptr && last_context_id_ == context ? *last_context_ : ContextOfSlow(context);
  }
  ContextState& ContextOfSlow(uint32_t context);
  // The state of `context`, or null if unknown.
  const ContextState* FindContext(uint32_t context) const {
    return last_context_ != nullptr && last_context_id_ == context ? last_context_ : FindContextSlow(context);
  }
  const ContextState* FindContextSlow(uint32_t context) const;
  // Whether the arguments are valid; if not, *Error says why (and is never OK).
  bool SendValid(const SendArgs& args) const;
  Status SendError(const SendArgs& args) const;
  bool RecvValid(const RecvArgs& args) const;
  Status RecvError(const RecvArgs& args) const;
  Status CheckRequestsLocked(std::span<Request* const> requests, const char* what) const;
  // engine_match.cc
  bool TryReceiveArrived(ContextState& state, const RecvArgs& args, grStatus_t* status);
  // Matches `message` (still queued: the caller drops it after) to `request`.
  void Consume(Request* request, Unexpected& message);
  void StartFetch(Request* request, const MatchHeader& header, std::unique_ptr<PendingPayload> payload);
  void OnSendDone(Request* request, const Status& result);
  void OnFetchDone(Request* request, const Status& result);
  // engine_device.cc
  // Whether `bytes` at `data` are GPU memory (false without a DeviceTransfer).
  bool IsDeviceData(const void* data, size_t bytes) const {
    return device_ != nullptr && bytes > 0 && device_->IsDevice(data);
  }
  // A device send over a wire that carries the rendezvous (the caller checked).
  StatusOr<Request*> IsendDeviceLocked(Request* r, const SendArgs& args);
  // A GPU send buffer bound for a wire that moves host memory only (UCX,
  // across hosts): a host copy of its bytes, made at the call (so the send
  // carries what the buffer held then, as a host send does), which the send
  // then carries as an ordinary message and keeps in r->staging until the
  // wire is done with it.
  StatusOr<std::unique_ptr<std::byte[]>> StageDeviceSend(const SendArgs& args);
  void OnFlagged(int world_source, const MatchHeader& header, std::span<const std::byte> payload);
  void OnDeviceFin(int world_source, const DeviceFin& fin);
  // Stores `n` bytes of a host payload into r->data (device memory when r->device).
  Status StoreInto(Request* r, const void* src, size_t n);
  void QueueFin(int world_peer, uint64_t send_id, grResult_t result);
  // engine.cc: the sync note that came before the next message from world_source (0 if none).
  uint64_t TakeSyncNote(int world_source);
  void FlushFins();
  // engine_fail.cc
  void FailPeerLocked(int world_peer, const Status& why);
  Status DeadSourceError(const ContextState& context, int source, int source_world) const;
  bool FailsWith(const Request& request, int world_peer) const;
  // engine_wait.cc
  StatusOr<int> ProgressLocked();
  StatusOr<int> ProgressAfterDeaths(const std::vector<PeerMonitor::Death>& deaths);
  template <typename Done, typename What>
  Status PollUntil(Lock& lock, uint64_t bytes, Done&& done, What&& what);
  Status WaitLocked(Lock& lock, Request* request, grStatus_t* status);
  void Finish(Request* request, grStatus_t* status);
  void CancelLocked(Request* request, const Status& why);

  mutable FastMutex mu_;
  const int world_rank_;
  RequestPool pool_;  // before the wires: requests outlive the wires' last callbacks
  std::vector<std::unique_ptr<Wire>> wires_;
  std::unique_ptr<Wire> loopback_;
  std::vector<int> wire_of_peer_;  // index in wires_, -1 for self
  std::unique_ptr<PeerMonitor> monitor_;
  const bool shared_cores_;  // this host runs more ranks than this process has cores (backoff.h)
  std::unordered_map<uint32_t, ContextState> contexts_;
  ContextState* last_context_ = nullptr;  // contexts_[last_context_id_], a lookup cache
  uint32_t last_context_id_ = 0;
  std::vector<Request*> reap_;              // released, wire no longer busy: free at the next chance
  std::unordered_map<int, Status> failed_;  // world rank → why it failed
  // Device memory (engine_device.cc).
  std::unique_ptr<DeviceTransfer> device_;
  uint64_t next_device_send_ = 1;
  std::unordered_map<uint64_t, Request*> device_sends_;  // send id → send waiting for its DeviceFin
  struct FinOut {
    int world_peer;
    DeviceFin fin;
  };
  std::vector<FinOut> fins_out_;                  // DeviceFins to send once no wire callback is running
  std::unordered_map<int, uint64_t> sync_notes_;  // world rank → id of its next message's sync note
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_ENGINE_H_
