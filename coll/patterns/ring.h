// Ring order: one channel's ring is a permutation of the ranks (NCCL's
// ring.userRanks, digest §3.4); data flows from each rank to the next one in
// that order and wraps around. This header answers, for a rank, its position
// in the ring and its prev/next neighbours, and validates an order the way
// ncclBuildRings does (every rank exactly once).
//
// Ranks and positions are ints in [0, nranks). Pure functions: no I/O, no
// state; the GR_HOST_DEVICE ones are usable from kernels.
#ifndef GPURUN_COLL_PATTERNS_RING_H_
#define GPURUN_COLL_PATTERNS_RING_H_

#include <span>
#include <vector>

#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

// Where a rank sits in a ring.
struct RingLinks {
  int prev = -1;   // rank it receives from
  int next = -1;   // rank it sends to
  int index = -1;  // its position in the ring order, 0 <= index < nranks
};

// The rank at position `index` of the ring, for any integer index (it wraps,
// so index - 1 of position 0 is the last rank).
GR_HOST_DEVICE constexpr int RingRankAt(const int* order, int nranks, int index) {
  return order[PosMod(index, nranks)];
}

// Position of `rank` in `order`, or -1 when it is not there. O(nranks).
GR_HOST_DEVICE constexpr int RingIndexOf(const int* order, int nranks, int rank) {
  for (int i = 0; i < nranks; ++i) {
    if (order[i] == rank) return i;
  }
  return -1;
}

// Neighbours and position of `rank`; all -1 when the rank is not in the ring.
// With one rank, prev == next == the rank itself.
GR_HOST_DEVICE constexpr RingLinks RingLinksOf(const int* order, int nranks, int rank) {
  const int index = RingIndexOf(order, nranks, rank);
  if (index < 0) return RingLinks{};
  return RingLinks{RingRankAt(order, nranks, index - 1), RingRankAt(order, nranks, index + 1), index};
}

// Host: whether `order` lists every rank 0..order.size()-1 exactly once.
inline bool IsRingOrder(std::span<const int> order) {
  const int n = static_cast<int>(order.size());
  if (n == 0) return false;
  std::vector<bool> seen(order.size(), false);
  for (int rank : order) {
    if (rank < 0 || rank >= n || seen[rank]) return false;
    seen[rank] = true;
  }
  return true;
}

// Host: the links of every rank, indexed by rank, in one O(n) pass.
// Precondition: IsRingOrder(order).
inline std::vector<RingLinks> RingLinksByRank(std::span<const int> order) {
  const int n = static_cast<int>(order.size());
  std::vector<RingLinks> links(order.size());
  for (int i = 0; i < n; ++i) {
    links[order[i]] = RingLinks{RingRankAt(order.data(), n, i - 1), RingRankAt(order.data(), n, i + 1), i};
  }
  return links;
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_RING_H_
