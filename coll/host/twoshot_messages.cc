// TwoShotAllReduce (twoshot_messages.h).
#include "coll/host/twoshot_messages.h"

#include <algorithm>
#include <span>

#include "coll/host/reduce.h"
#include "coll/host/step_window.h"

namespace gpurun::coll {
namespace {

// One round: at step k (1..n-1) this rank sends send_at(k) to rank r + k
// and receives recv_at(k) from rank r - k; an empty span skips that half
// (an empty block sends nothing, and its receiver expects nothing).
template <typename SendAt, typename RecvAt>
Status Exchange(CommLink& link, int tag, const char* what, SendAt send_at, RecvAt recv_at) {
  const int n = link.size(), r = link.rank();
  StepWindow window(link, tag, what);
  for (int k = 1; k < n; ++k) {
    const std::span<const std::byte> out = send_at(k);
    const std::span<std::byte> in = recv_at(k);
    const int send_peer = out.empty() ? -1 : (r + k) % n;
    const int recv_peer = in.empty() ? -1 : (r - k + n) % n;
    if (send_peer < 0 && recv_peer < 0) continue;
    if (!window.Post(send_peer, out.data(), out.size(), recv_peer, in.data(), in.size()).ok()) break;
  }
  return window.Finish();
}

// Elements `block` of `base`, as bytes.
template <typename T>
std::span<T> BytesOf(T* base, const Block& block, size_t esize) {
  return std::span<T>(base + block.start * esize, block.count * esize);
}

// Phase 1: block `to` of the input to each peer; every peer's copy of block
// `r` into `scratch` (slot k - 1 for the peer k steps back).
Status ScatterBlocks(CommLink& link, const CollCall& call, std::byte* scratch) {
  const int n = link.size(), r = link.rank();
  const size_t esize = ElemSize(call.type);
  const size_t slot_bytes = TwoShotBlock(call.count, n, r).count * esize;
  const auto* send = static_cast<const std::byte*>(call.send);
  return Exchange(
      link, kTwoShotScatterTag, "twoshot allreduce (reduce-scatter)",
      [&](int k) { return BytesOf(send, TwoShotBlock(call.count, n, (r + k) % n), esize); },
      [&](int k) { return std::span<std::byte>(scratch + static_cast<size_t>(k - 1) * slot_bytes, slot_bytes); });
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
  auto* recv = static_cast<std::byte*>(call.recv);
  const std::span<const std::byte> mine = BytesOf<const std::byte>(recv, TwoShotBlock(call.count, n, r), esize);
  return Exchange(
      link, kTwoShotGatherTag, "twoshot allreduce (all-gather)", [&](int) { return mine; },
      [&](int k) { return BytesOf(recv, TwoShotBlock(call.count, n, (r - k + n) % n), esize); });
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
