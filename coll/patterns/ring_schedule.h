// Who sends which piece at each transfer of NCCL's ring algorithms (digest §7;
// NCCL src/device/{all_reduce,all_gather,reduce_scatter,broadcast,reduce}.h).
//
// A "transfer" t is one round in which every rank sends one chunk to its ring
// next and receives one from its ring prev; `index` is the rank's ring
// position (ring.h). Pieces are numbered by ring position too:
//  - AllReduce: the loop's nranks chunks (chunking.h, RingAllReduceChunk);
//    chunk i ends fully reduced at position i.
//  - AllGather / ReduceScatter: the per-rank blocks; block i belongs to the
//    rank at ring position i (its user rank is order[i]).
// Chunks travel "backwards" (index - 1 - t), so that each finishes its
// n-way reduction at its owner (digest §7, RingARAlgorithm).
#ifndef GPURUN_COLL_PATTERNS_RING_SCHEDULE_H_
#define GPURUN_COLL_PATTERNS_RING_SCHEDULE_H_

#include <cstdint>

#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

// ---- AllReduce (pattern RingTwice): 2(n-1) transfers ----
// Transfers 0..n-2 are the reduce-scatter half (a received chunk is reduced
// into the local one before it moves on); after transfer n-2 position i holds
// chunk i fully reduced. Transfers n-1..2n-3 are the all-gather half (a
// received chunk is final: copied to the output and, but for the last,
// forwarded).

GR_HOST_DEVICE constexpr int RingAllReduceSendChunk(int index, int nranks, int t) {
  return PosMod(index - 1 - t, nranks);
}
GR_HOST_DEVICE constexpr int RingAllReduceRecvChunk(int index, int nranks, int t) {
  return PosMod(index - 2 - t, nranks);
}
// Whether what arrives at transfer t is reduced (true) or final (false).
GR_HOST_DEVICE constexpr bool RingAllReduceRecvReduces(int nranks, int t) { return t < nranks - 1; }

// ---- AllGather: n-1 transfers; a rank first sends its own block ----
GR_HOST_DEVICE constexpr int RingAllGatherSendBlock(int index, int nranks, int t) { return PosMod(index - t, nranks); }
GR_HOST_DEVICE constexpr int RingAllGatherRecvBlock(int index, int nranks, int t) {
  return PosMod(index - 1 - t, nranks);
}

// ---- ReduceScatter: n-1 transfers; ends with its own block reduced ----
GR_HOST_DEVICE constexpr int RingReduceScatterSendBlock(int index, int nranks, int t) {
  return PosMod(index - 1 - t, nranks);
}
GR_HOST_DEVICE constexpr int RingReduceScatterRecvBlock(int index, int nranks, int t) {
  return PosMod(index - 2 - t, nranks);
}

// ---- Broadcast / Reduce: a pipelined chain along the ring ----
// Broadcast flows from the root along the ring: the root heads the chain and
// only sends, the rank whose next is the root ends it and only receives.
// Reduce flows into the root: the root's next heads the chain (only sends),
// the root ends it (receives, reduces, writes the result).
enum class ChainRole : uint8_t {
  kAlone,   // one rank: nothing to send or receive
  kHead,    // send only
  kMiddle,  // receive, then send on
  kTail,    // receive only
};

// Position 0..n-1 along the broadcast chain of the rank at ring position
// `index`, the root being at ring position `root_index`.
GR_HOST_DEVICE constexpr int BroadcastChainPos(int index, int root_index, int nranks) {
  return PosMod(index - root_index, nranks);
}
// Same for reduce: the root is the last link of the chain.
GR_HOST_DEVICE constexpr int ReduceChainPos(int index, int root_index, int nranks) {
  return PosMod(index - root_index - 1, nranks);
}
GR_HOST_DEVICE constexpr ChainRole ChainRoleAt(int chain_pos, int nranks) {
  if (nranks == 1) return ChainRole::kAlone;
  if (chain_pos == 0) return ChainRole::kHead;
  return chain_pos == nranks - 1 ? ChainRole::kTail : ChainRole::kMiddle;
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_RING_SCHEDULE_H_
