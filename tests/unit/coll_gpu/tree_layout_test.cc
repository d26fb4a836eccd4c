// The GPU tree's buffer layout (coll/gpu/tree_layout.h), over 2..17 ranks:
// both ends of every link agree on it, slots are dense, and no two FIFO sets
// or counter lines overlap.
#include "coll/gpu/tree_layout.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace gpurun::coll {
namespace {

TEST(TreeLayout, SlotsAreDenseAndCounted) {
  for (int n = 2; n <= 17; ++n) {
    for (int pos = 0; pos < n; ++pos) {
      std::set<int> slots;
      for (int t = 0; t < kNumDoubleTrees; ++t) {
        const TreeLinks links = DoubleTreeLinks(n, pos, t);
        for (int role = 0; role < kTreeRoles; ++role) {
          const int slot = TreeSlot(n, pos, t, role);
          EXPECT_EQ(slot >= 0, TreePeerAt(links, role) >= 0) << n << " ranks, position " << pos;
          if (slot >= 0) {
            EXPECT_TRUE(slots.insert(slot).second) << "slot " << slot << " twice";
          }
        }
      }
      const int count = TreeSlotCount(n, pos);
      ASSERT_EQ(static_cast<int>(slots.size()), count);
      EXPECT_LE(count, kTreeMaxSlots);
      if (count > 0) {
        EXPECT_EQ(*slots.begin(), 0);
        EXPECT_EQ(*slots.rbegin(), count - 1);
      }
    }
  }
}

TEST(TreeLayout, BothEndsOfEveryLinkAgree) {
  for (int n = 2; n <= 17; ++n) {
    for (int pos = 0; pos < n; ++pos) {
      for (int t = 0; t < kNumDoubleTrees; ++t) {
        const TreeLinks links = DoubleTreeLinks(n, pos, t);
        for (int role = 0; role < kTreeRoles; ++role) {
          const int peer = TreePeerAt(links, role);
          if (peer < 0) continue;
          const int theirs = PeerRole(n, pos, t, role);
          ASSERT_GE(theirs, 0) << n << " ranks, tree " << t << ", " << pos << " -> " << peer;
          // The peer sees this position in that role, and back.
          EXPECT_EQ(TreePeerAt(DoubleTreeLinks(n, peer, t), theirs), pos);
          EXPECT_EQ(PeerRole(n, peer, t, theirs), role);
          EXPECT_GE(TreeSlot(n, peer, t, theirs), 0);
          // A parent link is answered by a child link.
          EXPECT_EQ(role == 0, theirs != 0);
        }
      }
    }
  }
}

TEST(TreeLayout, RegionsDoNotOverlap) {
  const int nchannels = 3;
  const uint64_t link_bytes = 4096;
  for (int n = 2; n <= 9; ++n) {
    for (int pos = 0; pos < n; ++pos) {
      std::set<std::pair<uint64_t, uint64_t>> regions;  // [begin, end)
      const int slots = TreeSlotCount(n, pos);
      for (int c = 0; c < nchannels; ++c) {
        for (int s = 0; s < slots; ++s) {
          const uint64_t counters = CounterOffset(c, s);
          EXPECT_LT(counters + 128 + 8, TreeControlBytes(nchannels) + 1);
          regions.insert({counters, counters + kTreeCounterStride});
          const uint64_t fifo = FifoOffset(nchannels, link_bytes, c, s);
          EXPECT_GE(fifo, TreeControlBytes(nchannels));
          regions.insert({fifo, fifo + link_bytes});
        }
      }
      uint64_t end = 0;
      for (const auto& [b, e] : regions) {
        EXPECT_GE(b, end) << n << " ranks, position " << pos;
        end = e;
      }
      EXPECT_LE(end, TreeControlBytes(nchannels) + link_bytes * static_cast<uint64_t>(slots * nchannels));
    }
  }
}

}  // namespace
}  // namespace gpurun::coll
