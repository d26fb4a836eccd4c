// NCCL's double binary tree (digest §3.4; NCCL src/graph/trees.cc,
// ncclGetBtree / ncclGetDtree / ncclGetDtreeRoots), over ranks 0..n-1.
//
// Tree 0 is a binary tree built from bit tricks, rooted at rank 0: a rank's
// parent clears its lowest set bit and sets the next one (or only clears it
// when that falls outside the ranks); its children are rank -/+ half of that
// bit. Odd ranks are leaves. Example, 14 ranks:
//
//   0 -> 8;  8 -> 4, 12;  4 -> 2, 6;  12 -> 10, 13;  2 -> 1, 3;  6 -> 5, 7;  10 -> 9, 11
//
// Tree 1 is tree 0 mirrored (rank r plays r' = n-1-r) when n is even, and
// shifted by one (r plays r-1 mod n) when n is odd. Either way the inner nodes
// of one tree are (almost all) leaves of the other, so a double tree carrying
// half the data on each tree spreads the reduce work and has no single hot
// root. Roots: tree 0 -> 0; tree 1 -> n-1 (even n) or 1 (odd n > 1).
//
// Children are listed compacted (children[0] first), as NCCL's connectTrees
// stores them with setTreeDown; ncclGetBtree itself reports the root's only
// child in its second slot.
#ifndef GPURUN_COLL_PATTERNS_DOUBLE_BINARY_TREE_H_
#define GPURUN_COLL_PATTERNS_DOUBLE_BINARY_TREE_H_

#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

inline constexpr int kTreeMaxChildren = 2;
inline constexpr int kNumDoubleTrees = 2;

// One rank's links in one tree; -1 means "none".
struct TreeLinks {
  int parent = -1;
  int children[kTreeMaxChildren] = {-1, -1};
  // NCCL's parentChildType: 0 if the rank is below its parent in the tree's
  // base numbering (the numbering of tree 0 before mirroring or shifting), 1
  // if above, -1 at the root. Multi-node wiring uses it to pick which of the
  // parent node's ranks connects down.
  int child_type = -1;

  GR_HOST_DEVICE constexpr int NumChildren() const { return (children[0] >= 0) + (children[1] >= 0); }
  GR_HOST_DEVICE constexpr bool IsRoot() const { return parent < 0; }
  GR_HOST_DEVICE constexpr bool IsLeaf() const { return children[0] < 0; }
};

// Tree 0: the binary tree rooted at rank 0 (ncclGetBtree).
GR_HOST_DEVICE constexpr TreeLinks BinaryTreeLinks(int nranks, int rank) {
  TreeLinks links;
  if (nranks <= 1) return links;
  // The lowest set bit of rank; for rank 0, the first power of two >= nranks.
  int bit = 1;
  while (bit < nranks && (bit & rank) == 0) bit <<= 1;
  int n_children = 0;
  if (rank == 0) {
    links.children[n_children++] = bit >> 1;
    return links;
  }
  int up = (rank ^ bit) | (bit << 1);
  if (up >= nranks) up = rank ^ bit;
  links.parent = up;
  links.child_type = rank < up ? 0 : 1;
  int low = bit >> 1;
  if (low == 0) return links;  // odd rank: a leaf
  links.children[n_children++] = rank - low;
  while (low > 0 && rank + low >= nranks) low >>= 1;
  if (low > 0) links.children[n_children++] = rank + low;
  return links;
}

// Links of `rank` in tree `tree` (0 or 1) of the double binary tree
// (ncclGetDtree).
GR_HOST_DEVICE constexpr TreeLinks DoubleTreeLinks(int nranks, int rank, int tree) {
  if (tree == 0 || nranks <= 1) return BinaryTreeLinks(nranks, rank);
  const bool shift = nranks % 2 == 1;
  // Tree 1's rank r plays the role of `base` in tree 0, and back.
  const int base = shift ? PosMod(rank - 1, nranks) : nranks - 1 - rank;
  TreeLinks links = BinaryTreeLinks(nranks, base);
  auto from_base = [nranks, shift](int b) { return b < 0 ? -1 : (shift ? (b + 1) % nranks : nranks - 1 - b); };
  links.parent = from_base(links.parent);
  links.children[0] = from_base(links.children[0]);
  links.children[1] = from_base(links.children[1]);
  return links;
}

// Root of tree `tree` (ncclGetDtreeRoots).
GR_HOST_DEVICE constexpr int DoubleTreeRoot(int nranks, int tree) {
  if (tree == 0) return 0;
  return (nranks % 2 == 1 && nranks > 1) ? 1 : nranks - 1;
}

// Which tree a channel runs on. NCCL builds C channels of tree 0 and then
// duplicates them for tree 1: channel c < C uses tree 0, channel C + c tree 1
// (connectTrees), so each tree carries half of the data.
GR_HOST_DEVICE constexpr int DoubleTreeOfChannel(int channel, int channels_per_tree) {
  return channel < channels_per_tree ? 0 : 1;
}

// Hops from `rank` up to the root of tree `tree`.
GR_HOST_DEVICE constexpr int TreeRankDepth(int nranks, int rank, int tree) {
  int depth = 0;
  for (int r = rank; r >= 0 && depth <= nranks; r = DoubleTreeLinks(nranks, r, tree).parent) ++depth;
  return depth - 1;
}

// Height of tree `tree`: the most hops from any rank to the root, i.e. the
// number of pipeline stages of a tree reduce or broadcast. O(n log n).
GR_HOST_DEVICE constexpr int TreeDepth(int nranks, int tree) {
  int depth = 0;
  for (int r = 0; r < nranks; ++r) depth = Max(depth, TreeRankDepth(nranks, r, tree));
  return depth;
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_DOUBLE_BINARY_TREE_H_
