// UcxCore::Close: the end of a wire. Pending user operations complete with
// the caller's status. Endpoints with nothing in flight are closed with a
// flush (so completed sends that UCX still buffers reach the peer); those
// with requests in flight (a send whose receiver never fetched, a fetch from
// a silent sender) are closed with FORCE, which cancels those requests: UCX
// must not be left with requests on an endpoint when its worker is
// destroyed. Closing is waited for at most kCloseWait (a peer that died
// without UCX noticing must not hold us), then the worker and the context
// are destroyed, which releases whatever is left.
#include <chrono>
#include <cstring>

#include "p2p/ucx/ucx_core.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {
namespace {

constexpr std::chrono::milliseconds kCloseWait(2000);

}  // namespace

void UcxCore::Close(const Status& why) {
  if (worker_ == nullptr && context_ == nullptr) return;
  closing_ = true;
  sink_ = nullptr;
  if (worker_ != nullptr) {
    std::vector<Completion> pending;
    for (auto& [raw, op] : ops_) {
      if (op->done) pending.push_back(std::move(op->done));
    }
    for (Completion& done : pending) done(why);
    DrainHeld();
    CloseEndpoints();
    DestroyAll();
  }
  if (context_ != nullptr) ucp_cleanup(context_);
  context_ = nullptr;
}

void UcxCore::DrainHeld() {
  std::vector<std::pair<ucp_tag_message_h, int>> held(held_.begin(), held_.end());
  for (auto& [message, world_source] : held) Drain(message, world_source);
}

void UcxCore::CloseEndpoints() {
  std::vector<bool> busy(peers_.size(), false);
  for (const auto& [raw, op] : ops_) {
    if (op->request != nullptr && op->kind != UcxOpKind::kClose && op->peer >= 0) busy[op->peer] = true;
  }
  for (UcxPeer& peer : peers_) {
    if (peer.ep == nullptr) continue;
    ucp_request_param_t param;
    std::memset(&param, 0, sizeof(param));
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = busy[peer.world] ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    UcxOp* op = NewOp(UcxOpKind::kClose, peer.world, nullptr);
    param.cb.send = &UcxSendCallback;
    param.user_data = op;
    ucp_ep_h ep = peer.ep;
    peer.ep = nullptr;
    Track(op, ucp_ep_close_nbx(ep, &param));
  }
  // Wait for the closes and for the requests they cancel; frames of unknown
  // senders are left to the worker's destruction.
  auto left = [this] {
    int count = 0;
    for (const auto& [raw, op] : ops_) count += op->kind != UcxOpKind::kFrame ? 1 : 0;
    return count;
  };
  const auto deadline = std::chrono::steady_clock::now() + kCloseWait;
  while (left() > 0 && std::chrono::steady_clock::now() < deadline) {
    ucp_worker_progress(worker_);
    HandleFailures();
    FlushFinished();
  }
  if (const int count = left(); count > 0) {
    GR_LOG(Info, Net) << "ucx: " << count << " request(s) still open after " << kCloseWait.count()
                      << " ms of closing; destroying the worker";
  }
}

void UcxCore::DestroyAll() {
  ignore_callbacks_ = true;  // requests released below may still complete inside ucp_worker_destroy
  for (auto& [raw, op] : ops_) {
    if (op->request != nullptr) ucp_request_free(op->request);
    op->request = nullptr;
  }
  if (address_ != nullptr) ucp_worker_release_address(worker_, address_);
  address_ = nullptr;
  ucp_worker_destroy(worker_);
  worker_ = nullptr;
  finished_.clear();
  errors_.clear();
  frame_op_ = nullptr;
  ops_.clear();
  announced_.clear();
  held_.clear();
  spare_frames_.clear();
}

}  // namespace gpurun::p2p
