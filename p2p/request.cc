// Request descriptions and completion (see request.h).
#include "p2p/request.h"

#include <string_view>

namespace gpurun::p2p {
namespace {

std::string RankText(int rank, int world) {
  if (rank == GR_ANY_SOURCE) return "any rank";
  return "rank " + std::to_string(rank) + " (world " + std::to_string(world) + ")";
}

}  // namespace

std::string DescribeOperation(const char* what, bool send, int peer, int peer_world, int tag, uint32_t context) {
  std::string out = std::string(what) + (send ? " to " : " from ") + RankText(peer, peer_world);
  out += tag == GR_ANY_TAG ? " with any tag" : " tag " + std::to_string(tag);
  out += " on context " + std::to_string(context);
  return out;
}

std::string Request::Describe() const {
  return DescribeOperation(what, kind == RequestKind::kSend, peer, peer_world, tag, context);
}

void Request::Reset() {
  kind = RequestKind::kRecv;
  what = "";
  context = 0;
  peer = 0;
  peer_world = 0;
  tag = 0;
  data = nullptr;
  bytes = 0;
  type_size = 1;
  posted = complete = wire_busy = released = false;
  matched_world = -1;
  device = false;
  device_send_id = 0;
  staging.reset();
  if (!error.ok()) error = OkStatus();
  status = grStatus_t{GR_ANY_SOURCE, GR_ANY_TAG, grSuccess, 0, 0};
  payload.reset();
}

void Request::Complete(const Status& result) {
  complete = true;
  posted = false;
  status.error = result.code();
  if (result.ok()) {
    if (!error.ok()) error = result;  // normally OK already: nothing to copy
    return;
  }
  const std::string prefix = Describe();
  const bool has_prefix = std::string_view(result.message()).starts_with(prefix);
  error = has_prefix ? result : result.WithContext(prefix);
}

void Request::CompleteTruncated(const MatchHeader& header, size_t written) {
  Complete(Status(grTruncated, "the message from rank " + std::to_string(header.source) + " tag " +
                                   std::to_string(header.tag) + " has " + std::to_string(header.bytes) +
                                   " bytes but the receive buffer holds " + std::to_string(bytes) +
                                   "; only the first " + std::to_string(written) + " were stored"));
}

}  // namespace gpurun::p2p
