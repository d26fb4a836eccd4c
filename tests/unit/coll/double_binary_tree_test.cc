// Double binary tree: structural checks over every rank count (one root, one
// parent each, children consistent with parents, no cycles, bounded depth),
// the complementary shape of the two trees, and the examples drawn in NCCL's
// trees.cc.
#include "coll/patterns/double_binary_tree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "coll_test_util.h"

namespace gpurun::coll {
namespace {

std::vector<TreeLinks> Tree(int n, int tree) {
  std::vector<TreeLinks> links(n);
  for (int r = 0; r < n; ++r) links[r] = DoubleTreeLinks(n, r, tree);
  return links;
}

std::set<int> InnerNodes(const std::vector<TreeLinks>& links) {
  std::set<int> inner;
  for (int r = 0; r < static_cast<int>(links.size()); ++r) {
    if (!links[r].IsLeaf()) inner.insert(r);
  }
  return inner;
}

TEST(DoubleBinaryTreeTest, EachTreeIsAValidBinaryTree) {
  for (int n : testing::RankCounts()) {
    for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " tree=" << tree);
      const std::vector<TreeLinks> links = Tree(n, tree);
      int roots = 0, edges = 0, max_depth = 0;
      for (int r = 0; r < n; ++r) {
        const TreeLinks& l = links[r];
        if (l.IsRoot()) {
          ++roots;
          EXPECT_EQ(r, DoubleTreeRoot(n, tree));
          EXPECT_EQ(l.child_type, -1);
        } else {
          ASSERT_GE(l.parent, 0);
          ASSERT_LT(l.parent, n);
          ASSERT_NE(l.parent, r);
          // The parent lists r among its children, exactly once.
          const TreeLinks& p = links[l.parent];
          EXPECT_EQ((p.children[0] == r) + (p.children[1] == r), 1);
          EXPECT_TRUE(l.child_type == 0 || l.child_type == 1);
        }
        // Children: compacted, in range, distinct, and each names r as parent.
        if (l.children[0] < 0) {
          EXPECT_LT(l.children[1], 0);
        }
        if (l.children[1] >= 0) {
          EXPECT_NE(l.children[0], l.children[1]);
        }
        for (int c : l.children) {
          if (c < 0) continue;
          ASSERT_LT(c, n);
          EXPECT_EQ(links[c].parent, r);
          ++edges;
        }
        EXPECT_EQ(l.NumChildren(), (l.children[0] >= 0) + (l.children[1] >= 0));
        // No cycle: the walk up reaches the root within n hops.
        int hops = 0;
        for (int x = r; !links[x].IsRoot(); x = links[x].parent) ASSERT_LT(++hops, n);
        EXPECT_EQ(TreeRankDepth(n, r, tree), hops);
        max_depth = std::max(max_depth, hops);
      }
      EXPECT_EQ(roots, 1);
      EXPECT_EQ(edges, n - 1);
      EXPECT_EQ(TreeDepth(n, tree), max_depth);
      EXPECT_LE(max_depth, CeilLog2(n) + 1);
    }
  }
}

TEST(DoubleBinaryTreeTest, TreeZeroIsNcclBtree) {
  for (int n : testing::RankCounts()) {
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    const std::vector<TreeLinks> links = Tree(n, 0);
    EXPECT_TRUE(links[0].IsRoot());
    for (int r = 1; r < n; ++r) {
      EXPECT_EQ(links[r].child_type, r < links[r].parent ? 0 : 1);
      if (r % 2 == 1) {
        EXPECT_TRUE(links[r].IsLeaf()) << "odd ranks are leaves";
      }
    }
    for (int r = 0; r < n; ++r) EXPECT_EQ(links[r].parent, BinaryTreeLinks(n, r).parent);
  }
}

TEST(DoubleBinaryTreeTest, TheTwoTreesDiffer) {
  for (int n : testing::RankCounts()) {
    if (n < 2) continue;
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    EXPECT_NE(DoubleTreeRoot(n, 0), DoubleTreeRoot(n, 1));
    const std::set<int> inner0 = InnerNodes(Tree(n, 0));
    const std::set<int> inner1 = InnerNodes(Tree(n, 1));
    std::set<int> both;
    for (int r : inner0) {
      if (inner1.count(r)) both.insert(r);
    }
    if (n % 2 == 0) {
      EXPECT_TRUE(both.empty()) << "mirror: the inner nodes of one tree are leaves of the other";
    } else {
      // Shift: only rank 0 (tree 0's root, the shifted last rank) is inner in both.
      EXPECT_EQ(both, std::set<int>{0});
    }
    // Tree 1 is the mirror or the shift of tree 0, edge for edge.
    for (int r = 0; r < n; ++r) {
      const int base = n % 2 == 0 ? n - 1 - r : PosMod(r - 1, n);
      const int p0 = BinaryTreeLinks(n, base).parent;
      const int p1 = DoubleTreeLinks(n, r, 1).parent;
      if (p0 < 0) {
        EXPECT_LT(p1, 0);
      } else {
        EXPECT_EQ(p1, n % 2 == 0 ? n - 1 - p0 : (p0 + 1) % n);
      }
    }
  }
}

// parent -> children, from the pictures in NCCL's src/graph/trees.cc.
std::map<int, std::set<int>> Children(int n, int tree) {
  std::map<int, std::set<int>> children;
  for (int r = 0; r < n; ++r) {
    for (int c : DoubleTreeLinks(n, r, tree).children) {
      if (c >= 0) children[r].insert(c);
    }
  }
  return children;
}

TEST(DoubleBinaryTreeTest, MatchesNcclPictures) {
  using M = std::map<int, std::set<int>>;
  // 14 ranks, tree 0.
  EXPECT_EQ(Children(14, 0),
            (M{{0, {8}}, {8, {4, 12}}, {4, {2, 6}}, {12, {10, 13}}, {2, {1, 3}}, {6, {5, 7}}, {10, {9, 11}}}));
  // 12 ranks, tree 1: the mirror, rooted at 11.
  EXPECT_EQ(Children(12, 1), (M{{11, {3}}, {3, {1, 7}}, {1, {0, 2}}, {7, {5, 9}}, {5, {4, 6}}, {9, {8, 10}}}));
  EXPECT_EQ(DoubleTreeRoot(12, 1), 11);
  // 13 ranks, tree 1: shifted by one, rooted at 1.
  EXPECT_EQ(Children(13, 1),
            (M{{1, {9}}, {9, {5, 0}}, {5, {3, 7}}, {0, {11}}, {3, {2, 4}}, {7, {6, 8}}, {11, {10, 12}}}));
  EXPECT_EQ(DoubleTreeRoot(13, 1), 1);
  // NCCL's comment: with 8 ranks, rank 1 has parent 2 and is a leaf.
  EXPECT_EQ(BinaryTreeLinks(8, 1).parent, 2);
  EXPECT_TRUE(BinaryTreeLinks(8, 1).IsLeaf());
}

TEST(DoubleBinaryTreeTest, SmallTreesAndDepths) {
  const TreeLinks lone = DoubleTreeLinks(1, 0, 1);
  EXPECT_TRUE(lone.IsRoot());
  EXPECT_TRUE(lone.IsLeaf());
  EXPECT_EQ(DoubleTreeRoot(1, 1), 0);
  EXPECT_EQ(TreeDepth(1, 0), 0);
  EXPECT_EQ(DoubleTreeLinks(2, 1, 0).parent, 0);
  EXPECT_EQ(DoubleTreeLinks(2, 0, 1).parent, 1);
  EXPECT_EQ(TreeDepth(2, 0), 1);
  EXPECT_EQ(TreeDepth(8, 0), 3);   // 0 -> 4 -> 2 -> 1
  EXPECT_EQ(TreeDepth(14, 0), 4);  // 0 -> 8 -> 4 -> 2 -> 1
  EXPECT_EQ(TreeDepth(9, 0), 4);   // 0 -> 8 was added above a full 8-rank tree
}

TEST(DoubleBinaryTreeTest, ChannelsSplitBetweenTheTrees) {
  EXPECT_EQ(DoubleTreeOfChannel(0, 4), 0);
  EXPECT_EQ(DoubleTreeOfChannel(3, 4), 0);
  EXPECT_EQ(DoubleTreeOfChannel(4, 4), 1);
  EXPECT_EQ(DoubleTreeOfChannel(7, 4), 1);
}

}  // namespace
}  // namespace gpurun::coll
