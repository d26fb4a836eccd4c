// UcxPendingPayload and the receive side of UcxCore for probed messages.
#include "p2p/ucx/ucx_pending.h"

#include <cstring>

#include "p2p/ucx/ucx_core.h"
#include "p2p/ucx/ucx_status.h"

namespace gpurun::p2p {

UcxPendingPayload::~UcxPendingPayload() {
  if (!used_ && core_->Holds(message_)) core_->Drain(message_, world_source_);
}

void UcxPendingPayload::Fetch(void* dst, size_t bytes, Completion done) {
  if (used_) {
    if (done) done(InvalidUsage("ucx: payload fetched twice"));
    return;
  }
  used_ = true;
  core_->Fetch(message_, length_, world_source_, dst, bytes, std::move(done));
}

ucs_status_t UcxCore::StartReceive(UcxOp* op, ucp_tag_message_h message) {
  ucp_request_param_t param;
  std::memset(&param, 0, sizeof(param));
  param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_DATATYPE;
  param.cb.recv = &UcxRecvCallback;
  param.user_data = op;
  param.datatype = ucp_dt_make_contig(1);
  return Track(op, ucp_tag_msg_recv_nbx(worker_, op->data, op->size, message, &param));
}

void UcxCore::Fetch(ucp_tag_message_h message, size_t length, int world_source, void* dst, size_t bytes,
                    Completion done) {
  if (!open() || !Holds(message)) {
    if (done) done(InvalidUsage("ucx: fetch of a payload the wire no longer holds (shut down)"));
    return;
  }
  if (peers_[world_source].failed) {
    Status why = peers_[world_source].why;
    Drain(message, world_source);  // release UCX's descriptor, whatever came of the payload
    if (done) done(why);
    return;
  }
  held_.erase(message);
  UcxOp* op = NewOp(UcxOpKind::kFetch, world_source, std::move(done));
  op->size = length;
  if (bytes < length) {
    op->owned = std::make_unique_for_overwrite<std::byte[]>(length);
    op->data = op->owned.get();
    op->copy_dst = dst;
    op->copy_bytes = bytes;
  } else {
    op->data = static_cast<std::byte*>(dst);
  }
  StartReceive(op, message);
}

void UcxCore::Drain(ucp_tag_message_h message, int world_source) {
  if (!open() || held_.erase(message) == 0) return;
  UcxOp* op = NewOp(UcxOpKind::kDrain, world_source, nullptr);
  StartReceive(op, message);  // zero bytes: ends as UCS_ERR_MESSAGE_TRUNCATED
}

}  // namespace gpurun::p2p
