// The collectives that run over point-to-point messages on a communicator's
// internal context (tags in comm.h) rather than the ring/tree executor:
// alltoall(v), gather(v), scatter(v), allgatherv, and the dissemination
// barrier. Each takes arguments the API layer has validated (coll_args.h);
// uniform variants are the v variants with uniform Blocks (alltoall =
// alltoallv with count-sized blocks), as STYLE.md §6 asks.
//
// Schedules:
//  - alltoall(v): pairwise exchange; out of place, step k = 1..n-1 sends to
//    rank+k and receives from rank-k. In place, step k exchanges with
//    partner (k - rank) mod n (an involution, so both sides of a pair are at
//    the same step): the outgoing block is copied to a temporary, the
//    incoming one lands where it was.
//  - gather(v) / scatter(v): linear at the root, every receive (send) posted.
//  - allgatherv: every rank sends its block to every other, pairwise like
//    alltoall (step k: to rank+k, from rank-k). For the 2..8 ranks of one
//    host this beats both a ring (n-1 dependent steps, each a full message
//    latency, for the same bytes per rank) and gatherv+bcast (two phases,
//    and the root sends n-1 times the whole result): all n-1 messages of a
//    rank are in flight at once and each byte moves once.
// Steps go through a StepWindow (coll/host/step_window.h): at most
// kMaxStepsInFlight steps (one send and/or one receive each) are in
// flight per rank, completed oldest first, so large communicators do not
// post thousands of requests; a step's partner is at the same step, so the
// window never deadlocks. Every wait is the engine's: bounded by
// GPURUN_TIMEOUT, and a dead or aborted peer fails it naming the peer. On an
// error the requests already posted are still completed (their buffers are
// the caller's) before the first error is returned. A received message of
// another size than the counts say is grInvalidUsage naming the sender.
#ifndef GPURUN_RUNTIME_COLL_P2P_H_
#define GPURUN_RUNTIME_COLL_P2P_H_

#include <cstddef>

#include "runtime/base/status.h"
#include "runtime/coll_link.h"

namespace gpurun {

// Per-rank blocks of a buffer, in elements: explicit arrays (the v calls) or
// uniform blocks of `count` elements at i * count.
class Blocks {
 public:
  Blocks() = default;
  static Blocks Uniform(size_t count) { return Blocks(nullptr, nullptr, count, true); }
  // Arrays of the communicator's size (null where this rank does not use them).
  static Blocks Explicit(const size_t* counts, const size_t* displs) { return Blocks(counts, displs, 0, false); }

  size_t Count(int i) const { return uniform_ ? count_ : counts_[i]; }
  size_t Displ(int i) const { return uniform_ ? static_cast<size_t>(i) * count_ : displs_[i]; }
  bool uniform() const { return uniform_; }
  // Uniform blocks of no elements: the whole call moves nothing on any rank.
  bool uniformly_empty() const { return uniform_ && count_ == 0; }

 private:
  Blocks(const size_t* counts, const size_t* displs, size_t count, bool uniform)
      : counts_(counts), displs_(displs), count_(count), uniform_(uniform) {}

  const size_t* counts_ = nullptr;
  const size_t* displs_ = nullptr;
  size_t count_ = 0;
  bool uniform_ = true;
};

struct AlltoallvCall {
  const void* send = nullptr;  // ignored in place
  Blocks send_blocks;          // ignored in place
  void* recv = nullptr;
  Blocks recv_blocks;
  size_t elem_size = 1;
  bool in_place = false;  // send == recv: each block is sent from, and replaced in, recv
};

struct GathervCall {
  const void* send = nullptr;  // in place at the root: recv + its block
  size_t send_count = 0;
  void* recv = nullptr;  // root only
  Blocks recv_blocks;    // root only
  size_t elem_size = 1;
  int root = 0;
};

struct ScattervCall {
  const void* send = nullptr;  // root only
  Blocks send_blocks;          // root only
  void* recv = nullptr;        // in place at the root: send + its block
  size_t recv_count = 0;
  size_t elem_size = 1;
  int root = 0;
};

struct AllgathervCall {
  const void* send = nullptr;  // in place: recv + this rank's block
  size_t send_count = 0;
  void* recv = nullptr;
  Blocks recv_blocks;
  size_t elem_size = 1;
};

// `what` names the C call ("grAlltoallv") in errors; a static string.
Status Alltoallv(RuntimeLink& link, const AlltoallvCall& call, const char* what);
Status Gatherv(RuntimeLink& link, const GathervCall& call, const char* what);
Status Scatterv(RuntimeLink& link, const ScattervCall& call, const char* what);
Status Allgatherv(RuntimeLink& link, const AllgathervCall& call, const char* what);
// ceil(log2 n) rounds; round d sends an empty message to rank + 2^d and
// receives one from rank - 2^d.
Status DisseminationBarrier(RuntimeLink& link, const char* what);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_P2P_H_
