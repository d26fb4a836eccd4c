// UcxCore: the UCX state behind a UcxWire (context, worker, endpoints, the
// requests in flight, the arrivals being taken in). Shared between the wire
// and the PendingPayloads it hands out, which may outlive it: after Close
// every entry point is inert. Internal to p2p/ucx; single-threaded like the
// wire. Member functions are split by phase:
//   ucx_core_setup.cc  Open, Connect           ucx_core_close.cc  Close
//   ucx_send.cc        Send                    ucx_arrivals.cc    probe, frames
//   ucx_ops.cc         op tracking, Finish, peer failures, Progress
//   ucx_pending.cc     Fetch, Drain (PendingPayload)
#ifndef GPURUN_P2P_UCX_UCX_CORE_H_
#define GPURUN_P2P_UCX_UCX_CORE_H_

#include <ucp/api/ucp.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "p2p/ucx/ucx_op.h"
#include "p2p/ucx/ucx_wire.h"
#include "p2p/wire.h"
#include "runtime/base/status.h"

namespace gpurun::p2p {

// One world rank as seen from this wire.
struct UcxPeer {
  UcxCore* core = nullptr;
  int world = -1;
  ucp_ep_h ep = nullptr;  // null: not reached, or closed after a failure
  bool reached = false;
  bool failed = false;
  Status why;  // grRemoteError naming the rank, once failed
};

class UcxCore : public std::enable_shared_from_this<UcxCore> {
 public:
  // `hosts[r]` names world rank r's host in messages (may be empty).
  UcxCore(int world_rank, std::vector<std::string> hosts);
  ~UcxCore();
  UcxCore(const UcxCore&) = delete;
  UcxCore& operator=(const UcxCore&) = delete;

  // Creates the context and the worker; fills times->init_s and worker_s.
  Status Open(UcxSetupTimes* times);
  // This worker's address, to publish.
  std::vector<std::byte> LocalAddress() const;
  // Creates an endpoint to each rank of `reach` from the gathered addresses.
  Status Connect(const std::vector<std::vector<std::byte>>& addresses, const std::vector<int>& reach);
  // Completes what is pending with `why`, closes endpoints, destroys the
  // worker and the context. Idempotent.
  void Close(const Status& why);

  bool open() const { return worker_ != nullptr; }
  bool Reaches(int world_peer) const;
  Status Send(int world_peer, const MatchHeader& header, const void* data, Completion done);
  // One round of progress; arrivals and peer failures go to `sink`.
  int Progress(WireSink* sink);

  // PendingPayload entry points (ucx_pending.cc).
  // Receives a probed large message into `dst` (see UcxPendingPayload::Fetch).
  void Fetch(ucp_tag_message_h message, size_t length, int world_source, void* dst, size_t bytes, Completion done);
  // Receives a probed large message into nothing: UCX ends it as truncated,
  // releases its descriptor and lets the sender's request complete.
  void Drain(ucp_tag_message_h message, int world_source);
  // Whether `message` still waits for Fetch or Drain (false once the wire is closed).
  bool Holds(ucp_tag_message_h message) const { return held_.contains(message); }

  // Called by UCX callbacks (ucx_ops.cc).
  void OnOpDone(UcxOp* op, void* request, ucs_status_t status);
  void OnEndpointError(UcxPeer* peer, ucs_status_t status);

 private:
  struct Announced {
    int world_source;
    uint64_t bytes;
  };

  // ucx_ops.cc
  UcxOp* NewOp(UcxOpKind kind, int peer, Completion done);
  // Acts on `ret` of a UCX call that started `op`: finishes it when done
  // inline (OK or error), else remembers the request. Returns the inline error.
  ucs_status_t Track(UcxOp* op, ucs_status_ptr_t ret);
  void Finish(UcxOp* op);
  Status OpStatus(const UcxOp& op) const;
  int FlushFinished();
  int HandleFailures();
  void FailPeer(UcxPeer& peer, ucs_status_t status);
  std::unique_ptr<std::byte[]> TakeFrameBuffer(size_t size);
  void ReturnFrameBuffer(UcxOp& op);
  std::string PeerName(int world) const;

  // ucx_send.cc
  Status CheckSendable(int world_peer, const MatchHeader& header) const;
  ucs_status_t StartSend(UcxOp* op, const void* data, size_t size, uint64_t tag);
  // Sends op->data/size; `done` runs at completion unless an error is returned.
  Status Launch(UcxOp* op, uint64_t tag, Completion done);

  // ucx_arrivals.cc
  int DrainArrivals();
  void StartFrameReceive(ucp_tag_message_h message, const ucp_tag_recv_info_t& info);
  void HandleFrame(const UcxOp& op);
  bool TakeAnnounced(uint64_t tag, size_t length, int* world_source);
  // A peer died while its frame was arriving: stop waiting for that frame.
  void AbandonFrameFrom(int world_source);

  // ucx_pending.cc
  ucs_status_t StartReceive(UcxOp* op, ucp_tag_message_h message);

  // ucx_core_close.cc
  void DrainHeld();
  void CloseEndpoints();
  void DestroyAll();

  int world_rank_;
  std::vector<std::string> hosts_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  ucp_address_t* address_ = nullptr;
  size_t address_length_ = 0;
  std::vector<UcxPeer> peers_;  // indexed by world rank; sized once, so pointers stay valid

  std::unordered_map<UcxOp*, std::unique_ptr<UcxOp>> ops_;
  std::vector<UcxOp*> finished_;                           // completed by a callback, not yet acted on
  std::vector<std::pair<UcxPeer*, ucs_status_t>> errors_;  // endpoint errors not yet handled
  std::vector<std::unique_ptr<std::byte[]>> spare_frames_;

  UcxOp* frame_op_ = nullptr;  // frame receive in flight; probing waits for it (keeps order)
  std::unique_ptr<std::byte[]> frame_buffer_;
  size_t frame_capacity_ = 0;
  std::unordered_map<uint64_t, std::deque<Announced>> announced_;  // tag → payloads announced, in order
  std::unordered_map<ucp_tag_message_h, int> held_;  // probed large messages not received yet → world source

  WireSink* sink_ = nullptr;
  bool closing_ = false;  // in Close: no sink calls, callbacks ignored once requests are released
  bool ignore_callbacks_ = false;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_CORE_H_
