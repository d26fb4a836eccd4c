// TwoShotAllReduce (twoshot_messages.h).
#include "coll/host/twoshot_messages.h"

#include <algorithm>

#include "coll/host/reduce.h"
#include "coll/host/step_window.h"

namespace gpurun::coll {
namespace {

// Phase 1: every peer's copy of block `r` into `scratch` (slot k - 1 for the
// peer k steps back), block `to` of the input to each peer.
Status ScatterBlocks(CommLink& link, const CollCall& call, std::byte* scratch) {
  const int n = link.size(), r = link.rank();
  const size_t esize = ElemSize(call.type);
  const Block mine = TwoShotBlock(call.count, n, r);
  const auto* send = static_cast<const std::byte*>(call.send);
  StepWindow window(link, kTwoShotScatterTag, "twoshot allreduce (reduce-scatter)");
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    const Block theirs = TwoShotBlock(call.count, n, to);
    const int send_peer = theirs.count > 0 ? to : -1;
    const int recv_peer = mine.count > 0 ? from : -1;
    if (send_peer < 0 && recv_peer < 0) continue;
    std::byte* slot = scratch + static_cast<size_t>(k - 1) * mine.count * esize;
    if (!window.Post(send_peer, send + theirs.start * esize, theirs.count * esize, recv_peer, slot, mine.count * esize)
             .ok()) {
      break;
    }
  }
  return window.Finish();
}

// Block `r` of the output: this rank's copy, then the peers' in the order
// they were received (the peer 1, 2, ... steps back). In place the output
// block is this rank's copy, which the first reduction reads before it
// writes.
void ReduceBlock(const CollCall& call, int n, int r, const std::byte* scratch) {
  const size_t esize = ElemSize(call.type);
  const Block mine = TwoShotBlock(call.count, n, r);
  if (mine.count == 0) return;
  const ReduceFn reduce = ReduceFnFor(call.type, call.op);
  const size_t slot_bytes = mine.count * esize;
  std::byte* out = static_cast<std::byte*>(call.recv) + mine.start * esize;
  reduce(out, static_cast<const std::byte*>(call.send) + mine.start * esize, scratch, mine.count);
  for (int k = 2; k < n; ++k) reduce(out, out, scratch + static_cast<size_t>(k - 1) * slot_bytes, mine.count);
  if (call.op == RedOp::kAvg) DivideBy(call.type, out, mine.count, static_cast<uint64_t>(n));
}

// Phase 2: this rank's reduced block to every peer, theirs into place.
Status GatherBlocks(CommLink& link, const CollCall& call) {
  const int n = link.size(), r = link.rank();
  const size_t esize = ElemSize(call.type);
  const Block mine = TwoShotBlock(call.count, n, r);
  auto* recv = static_cast<std::byte*>(call.recv);
  StepWindow window(link, kTwoShotGatherTag, "twoshot allreduce (all-gather)");
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    const Block theirs = TwoShotBlock(call.count, n, from);
    const int send_peer = mine.count > 0 ? to : -1;
    const int recv_peer = theirs.count > 0 ? from : -1;
    if (send_peer < 0 && recv_peer < 0) continue;
    if (!window
             .Post(send_peer, recv + mine.start * esize, mine.count * esize, recv_peer, recv + theirs.start * esize,
                   theirs.count * esize)
             .ok()) {
      break;
    }
  }
  return window.Finish();
}

}  // namespace

Block TwoShotBlock(uint64_t total, int n, int b) {
  const auto nb = static_cast<uint64_t>(n), ub = static_cast<uint64_t>(b);
  const uint64_t base = total / nb, extra = total % nb;
  return Block{base * ub + std::min(ub, extra), base + (ub < extra ? 1 : 0)};
}

Status TwoShotAllReduce(CommLink& link, const CollCall& call, std::vector<std::byte>& scratch) {
  const int n = link.size(), r = link.rank();
  const size_t need = static_cast<size_t>(n - 1) * TwoShotBlock(call.count, n, r).count * ElemSize(call.type);
  if (scratch.size() < need) scratch.resize(need);
  GR_RETURN_IF_ERROR(ScatterBlocks(link, call, scratch.data()));
  ReduceBlock(call, n, r, scratch.data());
  return GatherBlocks(link, call);
}

}  // namespace gpurun::coll
