// Posted and unexpected queues of one context (see match_queue.h).
#include "p2p/match_queue.h"

#include <algorithm>

namespace gpurun::p2p {

bool MatchQueue::Unpost(Request* request) {
  auto it = std::find(posted_.begin(), posted_.end(), request);
  if (it == posted_.end()) return false;
  posted_.erase(it);
  return true;
}

Request* MatchQueue::TakePosted(const MatchHeader& header) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    if (Matches((*it)->peer, (*it)->tag, header)) {
      Request* request = *it;
      posted_.erase(it);
      return request;
    }
  }
  return nullptr;
}

std::vector<Request*> MatchQueue::TakePostedIf(const std::function<bool(const Request&)>& pred) {
  std::vector<Request*> taken;
  for (auto it = posted_.begin(); it != posted_.end();) {
    if (pred(**it)) {
      taken.push_back(*it);
      it = posted_.erase(it);
    } else {
      ++it;
    }
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
