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

Unexpected& MatchQueue::EnqueueNew() {
  if (spares_.empty()) return unexpected_.emplace_back();
  unexpected_.splice(unexpected_.end(), spares_, spares_.begin());
  Unexpected& m = unexpected_.back();
  spare_bytes_ -= m.data.capacity();
  m.world_source = -1;
  m.header = MatchHeader{};
  m.data.clear();  // keeps the capacity
  m.sync_id = 0;
  return m;
}

const Unexpected* MatchQueue::PeekUnexpected(int source, int tag) const {
  for (const Unexpected& message : unexpected_) {
    if (Matches(source, tag, message.header)) return &message;
  }
  return nullptr;
}

void MatchQueue::Drop(const Unexpected* message) {
  // Found by address from the oldest: the one dropped is nearly always the first.
  auto it = unexpected_.begin();
  while (it != unexpected_.end() && &*it != message) ++it;
  if (it == unexpected_.end()) return;
  it->pending.reset();
  if (spares_.size() >= kMaxSpares) {
    unexpected_.erase(it);
    return;
  }
  if (spare_bytes_ + it->data.capacity() > kMaxSpareBytes) std::vector<std::byte>().swap(it->data);
  spare_bytes_ += it->data.capacity();
  spares_.splice(spares_.end(), unexpected_, it);
}

}  // namespace gpurun::p2p
