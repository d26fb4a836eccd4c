// Posted and unexpected queues of one context (see match_queue.h).
#include "p2p/match_queue.h"

#include <algorithm>

namespace gpurun::p2p {

bool MatchQueue::Unpost(Request* request) {
  if (request->queue_prev == nullptr && posted_head_ != request) return false;
  Unlink(request);
  return true;
}

std::vector<Request*> MatchQueue::TakePostedIf(const std::function<bool(const Request&)>& pred) {
  std::vector<Request*> taken;
  for (Request* r = posted_head_; r != nullptr;) {
    Request* next = r->queue_next;
    if (pred(*r)) {
      Unlink(r);
      taken.push_back(r);
    }
    r = next;
  }
  return taken;
}

std::optional<Unexpected> MatchQueue::TakeUnexpected(int source, int tag) {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (Matches(source, tag, it->header)) {
      Unexpected message = std::move(*it);
      unexpected_.erase(it);
      return message;
    }
  }
  return std::nullopt;
}

const Unexpected* MatchQueue::PeekUnexpected(int source, int tag) const {
  for (const Unexpected& message : unexpected_) {
    if (Matches(source, tag, message.header)) return &message;
  }
  return nullptr;
}

}  // namespace gpurun::p2p
