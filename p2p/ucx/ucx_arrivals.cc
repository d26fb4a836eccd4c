// UcxCore: taking arrivals in. Probes with remove, in the order messages
// reached the worker, and hands them to the sink in that order: a frame's
// receive must finish (and its frame be delivered) before the next message
// is probed, so per-sender order holds across eager and large messages.
#include <span>

#include "p2p/ucx/ucx_core.h"
#include "p2p/ucx/ucx_frame.h"
#include "p2p/ucx/ucx_pending.h"
#include "p2p/ucx/ucx_tag.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {
namespace {

// Most messages taken in per Progress call, so one call stays short.
constexpr int kMaxArrivalsPerProgress = 64;

}  // namespace

int UcxCore::DrainArrivals() {
  int taken = 0;
  while (frame_op_ == nullptr && open() && taken < kMaxArrivalsPerProgress) {
    ucp_tag_recv_info_t info;
    ucp_tag_message_h message = ucp_tag_probe_nb(worker_, 0, 0, 1, &info);
    if (message == nullptr) break;
    ++taken;
    int world_source = -1;
    if (TakeAnnounced(info.sender_tag, info.length, &world_source)) {
      held_.emplace(message, world_source);
      auto payload = std::make_unique<UcxPendingPayload>(shared_from_this(), message, info.length, world_source);
      if (sink_ != nullptr)
        sink_->OnPending(world_source, HeaderFromTag(info.sender_tag, info.length), std::move(payload));
      continue;
    }
    StartFrameReceive(message, info);
  }
  return taken;
}

void UcxCore::StartFrameReceive(ucp_tag_message_h message, const ucp_tag_recv_info_t& info) {
  if (info.length > frame_capacity_) {
    frame_buffer_ = std::make_unique_for_overwrite<std::byte[]>(info.length);
    frame_capacity_ = info.length;
  }
  UcxOp* op = NewOp(UcxOpKind::kFrame, -1, nullptr);
  op->data = frame_buffer_.get();
  op->size = info.length;
  op->tag = info.sender_tag;
  frame_op_ = op;
  StartReceive(op, message);  // completes inline (→ HandleFrame) or from a later Progress
}

void UcxCore::HandleFrame(const UcxOp& op) {
  frame_op_ = nullptr;
  if (op.status != UCS_OK) {
    GR_LOG(Warn, Net) << "ucx: receiving a message failed: " << ucs_status_string(op.status);
    return;
  }
  const std::span<const std::byte> frame(op.data, op.size);
  const std::optional<FrameInfo> info = ReadFrame(frame);
  if (!info || info->world_source >= static_cast<int>(peers_.size())) {
    GR_LOG(Warn, Net) << "ucx: dropped a malformed message (tag 0x" << std::hex << op.tag << std::dec << ", " << op.size
                      << " bytes)";
    return;
  }
  if (info->kind == FrameKind::kAnnounce) {
    announced_[op.tag].push_back({info->world_source, info->bulk_bytes});
    return;
  }
  if (sink_ == nullptr || closing_) return;
  const size_t skip = info->kind == FrameKind::kFlagged ? kFlaggedFrameBytes : kFramePrefixBytes;
  MatchHeader header = HeaderFromTag(op.tag, op.size - skip);
  header.flags = info->flags;
  sink_->OnEager(info->world_source, header, frame.subspan(skip));
}

void UcxCore::AbandonFrameFrom(int world_source) {
  if (frame_op_ == nullptr || frame_op_->size < kFramePrefixBytes) return;
  // UCX placed the first fragment, which holds the prefix, when the receive started.
  const std::optional<FrameInfo> info = ReadFrame(std::span<const std::byte>(frame_op_->data, kFramePrefixBytes));
  if (!info || info->world_source != world_source) return;
  // The rest will never come: let the receive finish (or die with the worker)
  // on its own buffer, and go on probing other senders.
  frame_op_->kind = UcxOpKind::kDrain;
  frame_op_->peer = world_source;
  frame_op_->owned = std::move(frame_buffer_);
  frame_capacity_ = 0;
  frame_op_ = nullptr;
}

bool UcxCore::TakeAnnounced(uint64_t tag, size_t length, int* world_source) {
  auto it = announced_.find(tag);
  if (it == announced_.end()) return false;
  const Announced next = it->second.front();
  it->second.pop_front();
  if (it->second.empty()) announced_.erase(it);
  if (next.bytes != length) {
    GR_LOG(Warn, Net) << "ucx: rank " << next.world_source << " announced " << next.bytes << " bytes but sent "
                      << length;
  }
  *world_source = next.world_source;
  return true;
}

}  // namespace gpurun::p2p
