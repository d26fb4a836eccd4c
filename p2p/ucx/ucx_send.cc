// UcxCore::Send: eager frames (prefix + payload, copied), flagged frames (the
// same with the flags after the prefix) and large payloads (announce frame,
// then the user buffer itself), see ucx_frame.h.
#include <cstring>

#include "p2p/ucx/ucx_core.h"
#include "p2p/ucx/ucx_frame.h"
#include "p2p/ucx/ucx_status.h"
#include "p2p/ucx/ucx_tag.h"

namespace gpurun::p2p {

Status UcxCore::CheckSendable(int world_peer, const MatchHeader& header) const {
  if (!open()) return InvalidUsage("ucx: send on a wire that is shut down");
  if (!Reaches(world_peer)) return InvalidArgument("ucx: no endpoint to rank " + std::to_string(world_peer));
  const UcxPeer& peer = peers_[world_peer];
  if (peer.failed) return peer.why;
  if (!FitsTag(header)) {
    return InvalidArgument("ucx: header does not fit the tag layout (context " + std::to_string(header.context) +
                           ", source " + std::to_string(header.source) + ", tag " + std::to_string(header.tag) + ")");
  }
  if (header.flags != 0 && header.bytes > kUcxEagerLimit) {
    return InvalidArgument("ucx: a flagged message of " + std::to_string(header.bytes) +
                           " bytes (flagged messages go eagerly, at most " + std::to_string(kUcxEagerLimit) + ")");
  }
  return OkStatus();
}

ucs_status_t UcxCore::StartSend(UcxOp* op, const void* data, size_t size, uint64_t tag) {
  ucp_request_param_t param;
  std::memset(&param, 0, sizeof(param));
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  param.cb.send = &UcxSendCallback;
  param.user_data = op;
  param.datatype = ucp_dt_make_contig(1);
  return Track(op, ucp_tag_send_nbx(peers_[op->peer].ep, data, size, tag, &param));
}

Status UcxCore::Launch(UcxOp* op, uint64_t tag, Completion done) {
  const int world_peer = op->peer;
  const ucs_status_t status = StartSend(op, op->data, op->size, tag);
  if (status == UCS_INPROGRESS) {
    op->done = std::move(done);  // op is alive until Finish, which runs later from Progress
    return OkStatus();
  }
  if (status == UCS_OK) {
    if (done) done(OkStatus());
    return OkStatus();
  }
  return UcsToStatus(status, "ucx: send to " + PeerName(world_peer));
}

Status UcxCore::Send(int world_peer, const MatchHeader& header, const void* data, Completion done) {
  GR_RETURN_IF_ERROR(CheckSendable(world_peer, header));
  const uint64_t tag = PackTag(header);
  if (header.bytes <= kUcxEagerLimit) {
    const size_t frame = header.flags != 0 ? kFlaggedFrameBytes : kFramePrefixBytes;
    UcxOp* op = NewOp(UcxOpKind::kSend, world_peer, nullptr);
    op->size = frame + header.bytes;
    op->owned = TakeFrameBuffer(op->size);
    op->data = op->owned.get();
    if (header.flags != 0) {
      WriteFlaggedPrefix(op->data, world_rank_, header.flags);
    } else {
      WriteEagerPrefix(op->data, world_rank_);
    }
    if (header.bytes > 0) std::memcpy(op->data + frame, data, header.bytes);
    return Launch(op, tag, std::move(done));
  }
  UcxOp* announce = NewOp(UcxOpKind::kAnnounce, world_peer, nullptr);
  announce->size = kAnnounceFrameBytes;
  announce->owned = TakeFrameBuffer(announce->size);
  announce->data = announce->owned.get();
  WriteAnnounce(announce->data, world_rank_, header.bytes);
  GR_RETURN_IF_ERROR(Launch(announce, tag, nullptr));

  UcxOp* op = NewOp(UcxOpKind::kSend, world_peer, nullptr);
  op->data = static_cast<std::byte*>(const_cast<void*>(data));
  op->size = header.bytes;
  Status sent = Launch(op, tag, std::move(done));
  // The receiver now waits for a payload that will not come: the stream to
  // this peer is broken, so treat the peer as failed from the next Progress.
  if (!sent.ok()) errors_.emplace_back(&peers_[world_peer], UCS_ERR_IO_ERROR);
  return sent;
}

}  // namespace gpurun::p2p
