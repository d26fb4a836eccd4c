// Ring order: positions and prev/next links for several orders of every rank
// count, and validation of orders.
#include "coll/patterns/ring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "coll_test_util.h"

namespace gpurun::coll {
namespace {

// Identity, reversed, a stride permutation and a shuffled order of n ranks.
std::vector<std::vector<int>> Orders(int n) {
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<int> reversed(identity.rbegin(), identity.rend());
  int stride = n / 2 + 1;
  while (std::gcd(stride, n) != 1) ++stride;
  std::vector<int> strided(n);
  for (int i = 0; i < n; ++i) strided[i] = static_cast<int>((static_cast<int64_t>(i) * stride) % n);
  std::vector<int> shuffled = identity;
  testing::SplitMix rng(n);
  for (int i = n - 1; i > 0; --i) std::swap(shuffled[i], shuffled[rng.Next() % (i + 1)]);
  return {identity, reversed, strided, shuffled};
}

TEST(RingTest, EveryRankOnceAndLinksAreInverse) {
  for (int n : testing::RankCounts()) {
    for (const std::vector<int>& order : Orders(n)) {
      SCOPED_TRACE(::testing::Message() << "n=" << n);
      ASSERT_TRUE(IsRingOrder(order));
      const std::vector<RingLinks> by_rank = RingLinksByRank(order);
      for (int r = 0; r < n; ++r) {
        const RingLinks links = RingLinksOf(order.data(), n, r);
        ASSERT_GE(links.index, 0);
        EXPECT_EQ(order[links.index], r);
        EXPECT_EQ(RingLinksOf(order.data(), n, links.next).prev, r);
        EXPECT_EQ(RingLinksOf(order.data(), n, links.prev).next, r);
        EXPECT_EQ(by_rank[r].prev, links.prev);
        EXPECT_EQ(by_rank[r].next, links.next);
        EXPECT_EQ(by_rank[r].index, links.index);
      }
      // Following next from rank order[0] visits every rank once and returns.
      std::vector<int> visits(n, 0);
      int r = order[0];
      for (int hop = 0; hop < n; ++hop, r = by_rank[r].next) ++visits[r];
      EXPECT_EQ(r, order[0]);
      EXPECT_EQ(std::count(visits.begin(), visits.end(), 1), n);
    }
  }
}

TEST(RingTest, OneRankIsItsOwnNeighbour) {
  const int order[] = {0};
  const RingLinks links = RingLinksOf(order, 1, 0);
  EXPECT_EQ(links.prev, 0);
  EXPECT_EQ(links.next, 0);
  EXPECT_EQ(links.index, 0);
}

TEST(RingTest, RankAtWrapsBothWays) {
  const int order[] = {3, 1, 0, 2};
  EXPECT_EQ(RingRankAt(order, 4, -1), 2);
  EXPECT_EQ(RingRankAt(order, 4, -5), 2);
  EXPECT_EQ(RingRankAt(order, 4, 4), 3);
  EXPECT_EQ(RingRankAt(order, 4, 9), 1);
  const RingLinks links = RingLinksOf(order, 4, 3);
  EXPECT_EQ(links.prev, 2);
  EXPECT_EQ(links.next, 1);
  EXPECT_EQ(links.index, 0);
}

TEST(RingTest, RankMissingFromTheRingHasNoLinks) {
  const int order[] = {0, 1, 2};
  const RingLinks links = RingLinksOf(order, 3, 5);
  EXPECT_EQ(links.prev, -1);
  EXPECT_EQ(links.next, -1);
  EXPECT_EQ(links.index, -1);
}

TEST(RingTest, RejectsOrdersThatAreNotPermutations) {
  EXPECT_FALSE(IsRingOrder(std::vector<int>{}));
  EXPECT_FALSE(IsRingOrder(std::vector<int>{0, 1, 1}));
  EXPECT_FALSE(IsRingOrder(std::vector<int>{0, 1, 3}));
  EXPECT_FALSE(IsRingOrder(std::vector<int>{0, -1, 2}));
  EXPECT_TRUE(IsRingOrder(std::vector<int>{2, 0, 1}));
}

}  // namespace
}  // namespace gpurun::coll
