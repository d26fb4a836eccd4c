// The two-shot allreduce's parts and scratch use (coll/device/twoshot_layout.h,
// twoshot_kernel.cuh), checked over 2..8 ranks and every line count up to a
// few hundred: the parts cut the lines in order without gaps, and a model
// of one call's writes (each rank's three steps, as the kernel makes them)
// writes no scratch line twice, stays inside the slot, and lets every rank
// hear from every other, which the scratch reuse rule of oneshot_launch.h
// needs.
#include "coll/device/twoshot_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "coll/device/oneshot_launch.h"

namespace gpurun::coll {
namespace {

TEST(TwoShotLayout, PartsCoverTheLinesInOrder) {
  for (int n = 2; n <= kMaxOneShotRanks; ++n) {
    for (uint64_t lines = 1; lines <= 300; ++lines) {
      SCOPED_TRACE(testing::Message() << n << " ranks, " << lines << " lines");
      uint64_t next = 0;
      for (int owner = 0; owner < n; ++owner) {
        uint64_t begin, end;
        TwoShotPart(lines, n, owner, &begin, &end);
        if (begin >= end) {
          EXPECT_EQ(next, lines) << "only the last parts may be empty";
          continue;
        }
        EXPECT_EQ(begin, next);
        for (uint64_t i = begin; i < end; ++i) EXPECT_EQ(TwoShotOwner(i, lines, n), owner);
        next = end;
      }
      EXPECT_EQ(next, lines);
      EXPECT_LE(TwoShotSlotLines(lines, n), lines + static_cast<uint64_t>(n) - 1);
      EXPECT_GE(TwoShotSlotLines(lines, n), lines);
    }
  }
}

// One call: (receiver, slot of sender, line) of every write, and who hears
// from whom.
struct CallModel {
  std::set<std::tuple<int, int, uint64_t>> writes;
  std::set<std::pair<int, int>> heard;  // (receiver, sender)
  bool twice = false;
  uint64_t top = 0;  // the highest line written, plus one

  void Write(int to, int from, uint64_t line) {
    twice |= !writes.insert({to, from, line}).second;
    heard.insert({to, from});
    top = std::max(top, line + 1);
  }
};

CallModel ModelCall(uint64_t lines, int n) {
  CallModel m;
  for (int rank = 0; rank < n; ++rank) {
    // 1. Scatter: lines of other parts to their owners.
    for (uint64_t i = 0; i < lines; ++i) {
      const int owner = TwoShotOwner(i, lines, n);
      if (owner != rank) m.Write(owner, rank, i);
    }
    // 2. The reduced part to every peer, or the token of an empty part.
    uint64_t begin, end;
    TwoShotPart(lines, n, rank, &begin, &end);
    for (int peer = 0; peer < n; ++peer) {
      if (peer == rank) continue;
      for (uint64_t i = begin; i < end; ++i) m.Write(peer, rank, i);
      if (begin >= end) m.Write(peer, rank, TwoShotTokenLine(lines, n, rank));
    }
  }
  return m;
}

TEST(TwoShotLayout, ACallWritesEachScratchLineOnceAndEveryRankHearsFromAll) {
  for (int n = 2; n <= kMaxOneShotRanks; ++n) {
    for (uint64_t lines = 1; lines <= 200; ++lines) {
      SCOPED_TRACE(testing::Message() << n << " ranks, " << lines << " lines");
      const CallModel m = ModelCall(lines, n);
      EXPECT_FALSE(m.twice);
      EXPECT_LE(m.top, TwoShotSlotLines(lines, n));
      EXPECT_EQ(m.heard.size(), static_cast<size_t>(n * (n - 1)));
    }
  }
}

TEST(TwoShotLayout, FewerLinesThanRanks) {
  // One line on four ranks: rank 0 owns it, ranks 1..3 send tokens at lines
  // 1..3, inside a slot of four lines.
  uint64_t begin, end;
  TwoShotPart(1, 4, 0, &begin, &end);
  EXPECT_EQ(begin, 0u);
  EXPECT_EQ(end, 1u);
  TwoShotPart(1, 4, 2, &begin, &end);
  EXPECT_GE(begin, end);
  EXPECT_EQ(TwoShotTokenLine(1, 4, 2), 2u);
  EXPECT_EQ(TwoShotSlotLines(1, 4), 4u);
}

}  // namespace
}  // namespace gpurun::coll
