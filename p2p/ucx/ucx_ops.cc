// UcxCore: tracking of UCX requests, their completion, peer failures, and the
// progress loop that ties them together.
#include <cstring>

#include "p2p/ucx/ucx_core.h"
#include "p2p/ucx/ucx_frame.h"
#include "p2p/ucx/ucx_status.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {
namespace {

// Rounds of ucp_worker_progress per Progress call while UCX reports work.
constexpr int kMaxWorkerRounds = 16;
// Frame buffers kept for reuse by eager sends.
constexpr size_t kMaxSpareFrames = 64;
constexpr size_t kPooledFrameBytes = kFramePrefixBytes + kUcxEagerLimit;

}  // namespace

void UcxSendCallback(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<UcxOp*>(user_data);
  op->core->OnOpDone(op, request, status);
}

void UcxRecvCallback(void* request, ucs_status_t status, const ucp_tag_recv_info_t* /*info*/, void* user_data) {
  auto* op = static_cast<UcxOp*>(user_data);
  op->core->OnOpDone(op, request, status);
}

void UcxCore::OnOpDone(UcxOp* op, void* request, ucs_status_t status) {
  if (ignore_callbacks_) return;  // Close released the request; the op dies with the worker
  op->request = request;
  op->status = status;
  finished_.push_back(op);
}

void UcxCore::OnEndpointError(UcxPeer* peer, ucs_status_t status) {
  if (ignore_callbacks_) return;
  errors_.emplace_back(peer, status);
}

UcxOp* UcxCore::NewOp(UcxOpKind kind, int peer, Completion done) {
  auto op = std::make_unique<UcxOp>();
  op->core = this;
  op->kind = kind;
  op->peer = peer;
  op->done = std::move(done);
  UcxOp* raw = op.get();
  ops_.emplace(raw, std::move(op));
  return raw;
}

ucs_status_t UcxCore::Track(UcxOp* op, ucs_status_ptr_t ret) {
  if (UCS_PTR_IS_PTR(ret)) {
    op->request = ret;  // the callback reports completion (it may already have, inline)
    return UCS_INPROGRESS;
  }
  op->status = UCS_PTR_STATUS(ret);
  const ucs_status_t status = op->status;
  Finish(op);
  return status;
}

Status UcxCore::OpStatus(const UcxOp& op) const {
  if (op.status == UCS_OK) return OkStatus();
  if (op.peer >= 0 && op.peer < static_cast<int>(peers_.size())) {
    const UcxPeer& peer = peers_[op.peer];
    if (peer.failed) return peer.why;
    return UcsToStatus(op.status, "ucx: operation with " + PeerName(op.peer));
  }
  return UcsToStatus(op.status, "ucx: receive");
}

void UcxCore::Finish(UcxOp* op) {
  if (op->request != nullptr) ucp_request_free(op->request);
  op->request = nullptr;
  switch (op->kind) {
    case UcxOpKind::kSend:
    case UcxOpKind::kAnnounce: ReturnFrameBuffer(*op); break;
    case UcxOpKind::kFrame: HandleFrame(*op); break;
    case UcxOpKind::kFetch:
      if (op->status == UCS_OK && op->copy_dst != nullptr && op->copy_bytes > 0) {
        std::memcpy(op->copy_dst, op->data, op->copy_bytes);
      }
      break;
    case UcxOpKind::kDrain:
      if (op->status != UCS_OK && op->status != UCS_ERR_MESSAGE_TRUNCATED) {
        GR_LOG(Info, Net) << "ucx: draining a dropped message: " << OpStatus(*op).message();
      }
      break;
    case UcxOpKind::kClose: break;
  }
  Completion done = std::move(op->done);
  Status status = done ? OpStatus(*op) : OkStatus();
  ops_.erase(op);  // frees op (and its buffers) before user code runs
  if (done) done(status);
}

int UcxCore::FlushFinished() {
  int handled = 0;
  while (!finished_.empty()) {
    std::vector<UcxOp*> batch;
    batch.swap(finished_);
    for (UcxOp* op : batch) {
      Finish(op);
      ++handled;
    }
  }
  return handled;
}

void UcxCore::FailPeer(UcxPeer& peer, ucs_status_t status) {
  if (peer.failed) return;
  peer.failed = true;
  peer.why = RemoteError("ucx: lost " + PeerName(peer.world) + ": " + ucs_status_string(status));
  GR_LOG(Warn, Net) << peer.why.message();
  if (peer.ep != nullptr) {
    ucp_request_param_t param;
    std::memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.flags = UCP_EP_CLOSE_FLAG_FORCE;
    UcxOp* op = NewOp(UcxOpKind::kClose, peer.world, nullptr);
    param.cb.send = &UcxSendCallback;
    param.user_data = op;
    ucp_ep_h ep = peer.ep;
    peer.ep = nullptr;
    Track(op, ucp_ep_close_nbx(ep, &param));
  }
  AbandonFrameFrom(peer.world);
  // Fetches from the peer may never complete in UCX: fail them now, and let
  // the UCX request (if it ever ends) be freed without a user completion.
  std::vector<Completion> failed;
  for (auto& [raw, op] : ops_) {
    if (op->kind == UcxOpKind::kFetch && op->peer == peer.world && op->done) failed.push_back(std::move(op->done));
  }
  if (sink_ != nullptr && !closing_) sink_->OnPeerFailed(peer.world, peer.why);
  for (Completion& done : failed) done(peer.why);
}

int UcxCore::HandleFailures() {
  int handled = 0;
  while (!errors_.empty()) {
    std::vector<std::pair<UcxPeer*, ucs_status_t>> batch;
    batch.swap(errors_);
    for (auto& [peer, status] : batch) {
      FailPeer(*peer, status);
      ++handled;
    }
  }
  return handled;
}

int UcxCore::Progress(WireSink* sink) {
  if (!open()) return 0;
  sink_ = sink;
  int events = 0;
  for (int round = 0; round < kMaxWorkerRounds && ucp_worker_progress(worker_) != 0; ++round) ++events;
  events += HandleFailures();
  events += FlushFinished();
  events += DrainArrivals();
  events += FlushFinished();
  return events;
}

std::unique_ptr<std::byte[]> UcxCore::TakeFrameBuffer(size_t size) {
  if (size > kPooledFrameBytes) return std::make_unique_for_overwrite<std::byte[]>(size);
  if (spare_frames_.empty()) return std::make_unique_for_overwrite<std::byte[]>(kPooledFrameBytes);
  std::unique_ptr<std::byte[]> buffer = std::move(spare_frames_.back());
  spare_frames_.pop_back();
  return buffer;
}

void UcxCore::ReturnFrameBuffer(UcxOp& op) {
  if (op.owned == nullptr || op.size > kPooledFrameBytes || spare_frames_.size() >= kMaxSpareFrames) return;
  spare_frames_.push_back(std::move(op.owned));
}

}  // namespace gpurun::p2p
