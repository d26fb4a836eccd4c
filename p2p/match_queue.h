// MatchQueue: MPI matching state of one communicator context — receives posted
// before their message arrived, and messages that arrived before a receive
// matched them ("unexpected"). Both are kept in order (post order, arrival
// order) and searched from the oldest entry, which together with wires that
// deliver one sender's messages in send order gives MPI's non-overtaking rule
// per (source, tag, context). Posted receives are linked through the
// requests themselves (Request::queue_prev/next), so posting and unposting
// allocate nothing and unposting takes constant time. Pure data structure: no
// wires, no locking.
#ifndef GPURUN_P2P_MATCH_QUEUE_H_
#define GPURUN_P2P_MATCH_QUEUE_H_

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <utility>
#include <vector>

#include "p2p/match_header.h"
#include "p2p/request.h"
#include "p2p/wire.h"

namespace gpurun::p2p {

// A message that arrived before any receive matched it: an eager payload
// copied into `data`, or the rendezvous handle `pending`.
struct Unexpected {
  int world_source = -1;
  MatchHeader header;
  std::vector<std::byte> data;
  std::unique_ptr<PendingPayload> pending;
  uint64_t sync_id = 0;  // a synchronous send's id: matching it sends its DeviceFin (engine.h)
};

// Whether a receive for (source, tag) — either may be a wildcard — takes `header`.
inline bool Matches(int source, int tag, const MatchHeader& header) {
  return (source == GR_ANY_SOURCE || source == header.source) && (tag == GR_ANY_TAG || tag == header.tag);
}

class MatchQueue {
 public:
  // Appends a receive (in no posted queue) to the posted queue.
  void Post(Request* request) {
    request->queue_prev = posted_tail_;
    request->queue_next = nullptr;
    (posted_tail_ != nullptr ? posted_tail_->queue_next : posted_head_) = request;
    posted_tail_ = request;
    ++posted_count_;
  }
  // Removes a posted receive; false if it is not in the queue (`request` must
  // be in this queue or in none).
  bool Unpost(Request* request);
  // Removes and returns the oldest posted receive that takes `header`, or null.
  Request* TakePosted(const MatchHeader& header) {
    for (Request* r = posted_head_; r != nullptr; r = r->queue_next) {
      if (Matches(r->peer, r->tag, header)) {
        Unlink(r);
        return r;
      }
    }
    return nullptr;
  }
  // Removes and returns every posted receive for which `pred` holds.
  std::vector<Request*> TakePostedIf(const std::function<bool(const Request&)>& pred);

  // Appends an empty arrival to the unexpected queue for the caller to fill:
  // an entry of an earlier arrival where one was kept (Drop), whose data
  // keeps its capacity, so that a steady stream of small unexpected eager
  // messages allocates nothing (a list node and a vector per message were a
  // fifth of a 2-rank 8-byte scatter's time, perf 2026-12-03).
  Unexpected& EnqueueNew();
  // The oldest unexpected message matching (source, tag), left queued.
  const Unexpected* PeekUnexpected(int source, int tag) const;
  Unexpected* FindUnexpected(int source, int tag) {
    return const_cast<Unexpected*>(std::as_const(*this).PeekUnexpected(source, tag));
  }
  // Removes `message` (one FindUnexpected returned) from the queue, keeping
  // its entry for a later arrival.
  void Drop(const Unexpected* message);

  size_t posted_count() const { return posted_count_; }
  size_t unexpected_count() const { return unexpected_.size(); }

 private:
  void Unlink(Request* r) {
    (r->queue_prev != nullptr ? r->queue_prev->queue_next : posted_head_) = r->queue_next;
    (r->queue_next != nullptr ? r->queue_next->queue_prev : posted_tail_) = r->queue_prev;
    r->queue_prev = r->queue_next = nullptr;
    --posted_count_;
  }

  Request* posted_head_ = nullptr;  // oldest first
  Request* posted_tail_ = nullptr;
  size_t posted_count_ = 0;
  std::list<Unexpected> unexpected_;  // oldest first
  // Entries kept for EnqueueNew: at most kMaxSpares (a sender running ahead
  // leaves a burst of arrivals to drain: 16 spares were too few for a 2-rank
  // 8-byte scatter), whose data capacities add up to at most kMaxSpareBytes
  // (what an idle context keeps).
  static constexpr size_t kMaxSpares = 512;
  static constexpr size_t kMaxSpareBytes = 256 * 1024;
  std::list<Unexpected> spares_;
  size_t spare_bytes_ = 0;  // data capacity held by spares_
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_MATCH_QUEUE_H_
