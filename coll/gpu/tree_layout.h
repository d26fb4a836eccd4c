// Where the GPU double binary tree's connections live in each rank's buffer
// (tree_connectors.h). Pure: every rank computes any rank's layout from the
// tree pattern (coll/patterns/double_binary_tree.h) over ring positions.
//
// A rank at position p has a link slot per (tree, role) it takes part in —
// role 0 its parent, roles 1 and 2 its children — numbered in the order tree
// 0 parent, child 0, child 1, tree 1 parent, child 0, child 1, skipping the
// ones it lacks. Its buffer holds counters for every (channel, slot) at
// CounterOffset (the receiving tail at +0, the sending head at +128, each on
// its own 128-byte line) and one FIFO set (Simple, LL, LL128 of
// `link_bytes` together) per (slot, channel) at FifoOffset. The peer at the
// other end of a link finds its side through PeerRole.
#ifndef GPURUN_COLL_GPU_TREE_LAYOUT_H_
#define GPURUN_COLL_GPU_TREE_LAYOUT_H_

#include <cstdint>

#include "coll/patterns/double_binary_tree.h"

namespace gpurun::coll {

// Most channels of the GPU tree (two blocks each, one per tree). Each rank
// holds a FIFO set per channel for each of its tree links (2 with two ranks,
// up to 6), so the tree takes fewer channels than the ring.
inline constexpr int kMaxGpuTreeChannels = 16;

// The tree's channels on a ring of `ring_channels`: as many, up to the
// limit above (the executor and gpurun-tune --gpu both ask here).
constexpr int GpuTreeChannels(int ring_channels) {
  return ring_channels < kMaxGpuTreeChannels ? ring_channels : kMaxGpuTreeChannels;
}

inline constexpr int kTreeRoles = 1 + kTreeMaxChildren;
inline constexpr int kTreeMaxSlots = kNumDoubleTrees * kTreeRoles;
inline constexpr uint64_t kTreeCounterStride = 256;

// The position of the peer in `role` of position `pos` in tree `tree`; -1: none.
constexpr int TreePeerAt(const TreeLinks& links, int role) {
  return role == 0 ? links.parent : links.children[role - 1];
}

// The slot of (tree, role) at position `pos`, or -1 when it has no such peer.
constexpr int TreeSlot(int nranks, int pos, int tree, int role) {
  int slot = 0;
  for (int t = 0; t < kNumDoubleTrees; ++t) {
    const TreeLinks links = DoubleTreeLinks(nranks, pos, t);
    for (int r = 0; r < kTreeRoles; ++r) {
      const bool has = TreePeerAt(links, r) >= 0;
      if (t == tree && r == role) return has ? slot : -1;
      if (has) ++slot;
    }
  }
  return -1;
}

// Link slots of position `pos`.
constexpr int TreeSlotCount(int nranks, int pos) {
  int slots = 0;
  for (int t = 0; t < kNumDoubleTrees; ++t) {
    const TreeLinks links = DoubleTreeLinks(nranks, pos, t);
    slots += (links.parent >= 0) + links.NumChildren();
  }
  return slots;
}

// The role `pos` has in the view of its peer in `role` (its parent sees it
// as child k: role 1 + k; a child sees it as its parent: role 0).
constexpr int PeerRole(int nranks, int pos, int tree, int role) {
  const TreeLinks mine = DoubleTreeLinks(nranks, pos, tree);
  if (role != 0) return 0;
  const TreeLinks up = DoubleTreeLinks(nranks, mine.parent, tree);
  for (int k = 0; k < kTreeMaxChildren; ++k) {
    if (up.children[k] == pos) return 1 + k;
  }
  return -1;
}

constexpr uint64_t TreeControlBytes(int nchannels) {
  return kTreeCounterStride * kTreeMaxSlots * static_cast<uint64_t>(nchannels);
}

constexpr uint64_t CounterOffset(int channel, int slot) {
  return kTreeCounterStride * (static_cast<uint64_t>(channel) * kTreeMaxSlots + static_cast<uint64_t>(slot));
}

constexpr uint64_t FifoOffset(int nchannels, uint64_t link_bytes, int channel, int slot) {
  return TreeControlBytes(nchannels) +
         link_bytes * (static_cast<uint64_t>(slot) * static_cast<uint64_t>(nchannels) + static_cast<uint64_t>(channel));
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_TREE_LAYOUT_H_
