#include "runtime/launcher/job_layout.h"

#include <gtest/gtest.h>

namespace gpurun::launcher {
namespace {

std::vector<std::string> Hosts(int n) {
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) hosts.push_back("h" + std::to_string(i));
  return hosts;
}

TEST(JobLayout, OneNode) {
  StatusOr<JobLayout> layout = JobLayout::Block(4, {"node"});
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->num_ranks(), 4);
  EXPECT_EQ(layout->num_nodes(), 1);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(layout->rank(r).node, 0);
    EXPECT_EQ(layout->rank(r).local_rank, r);
    EXPECT_EQ(layout->rank(r).local_size, 4);
    EXPECT_EQ(layout->hostname_of(r), "node");
  }
  EXPECT_EQ(layout->LocalPeers(0), "0,1,2,3");
  EXPECT_EQ(layout->NodeList(), "node");
  EXPECT_EQ(layout->ProcList(), "0,1,2,3");
}

TEST(JobLayout, BlocksOverNodes) {
  StatusOr<JobLayout> layout = JobLayout::Block(7, Hosts(3));  // 3 + 2 + 2
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->LocalPeers(0), "0,1,2");
  EXPECT_EQ(layout->LocalPeers(1), "3,4");
  EXPECT_EQ(layout->LocalPeers(2), "5,6");
  EXPECT_EQ(layout->NodeList(), "h0,h1,h2");
  EXPECT_EQ(layout->ProcList(), "0,1,2;3,4;5,6");
  EXPECT_EQ(layout->rank(4).node, 1);
  EXPECT_EQ(layout->rank(4).local_rank, 1);
  EXPECT_EQ(layout->rank(4).local_size, 2);
  EXPECT_EQ(layout->rank(0).local_size, 3);
  EXPECT_EQ(layout->hostname_of(6), "h2");
}

TEST(JobLayout, EveryRankPlacedOnceForManyShapes) {
  for (int nodes : {1, 2, 3, 8}) {
    for (int ranks : {1, 2, 3, 8, 11, 16}) {
      StatusOr<JobLayout> layout = JobLayout::Block(ranks, Hosts(nodes));
      ASSERT_TRUE(layout.ok());
      int total = 0;
      for (int n = 0; n < nodes; ++n) {
        const NodePlace& node = layout->node(n);
        total += static_cast<int>(node.ranks.size());
        for (size_t i = 0; i < node.ranks.size(); ++i) {
          const RankPlace& place = layout->rank(node.ranks[i]);
          EXPECT_EQ(place.node, n);
          EXPECT_EQ(place.local_rank, static_cast<int>(i));
          EXPECT_EQ(place.local_size, static_cast<int>(node.ranks.size()));
        }
        // Sizes differ by at most one, larger nodes first.
        if (n > 0) {
          EXPECT_LE(node.ranks.size(), layout->node(n - 1).ranks.size());
        }
        EXPECT_LE(layout->node(0).ranks.size() - node.ranks.size(), 1u);
      }
      EXPECT_EQ(total, ranks);
    }
  }
}

TEST(JobLayout, Errors) {
  EXPECT_FALSE(JobLayout::Block(0, {"h"}).ok());
  EXPECT_FALSE(JobLayout::Block(2, {}).ok());
}

}  // namespace
}  // namespace gpurun::launcher
