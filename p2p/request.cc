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

void Request::Complete(const Status& result) {
  complete = true;
  posted = false;
  if (result.ok()) {
    error = result;
  } else {
    const std::string prefix = Describe();
    const bool has_prefix = std::string_view(result.message()).starts_with(prefix);
    error = has_prefix ? result : result.WithContext(prefix);
  }
  status.error = error.code();
}

void Request::CompleteReceive(const MatchHeader& header, size_t written) {
  status.source = header.source;
  status.tag = header.tag;
  status.bytes = written;
  status.count = type_size == 0 ? 0 : written / type_size;
  if (header.bytes <= bytes) {
    Complete(OkStatus());
    return;
  }
  Complete(Status(grTruncated, "the message from rank " + std::to_string(header.source) + " tag " +
                                   std::to_string(header.tag) + " has " + std::to_string(header.bytes) +
                                   " bytes but the receive buffer holds " + std::to_string(bytes) +
                                   "; only the first " + std::to_string(written) + " were stored"));
}

grStatus_t EmptyStatus(grResult_t error) { return grStatus_t{GR_ANY_SOURCE, GR_ANY_TAG, error, 0, 0}; }

}  // namespace gpurun::p2p
