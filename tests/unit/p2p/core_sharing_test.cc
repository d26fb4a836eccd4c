#include "p2p/core_sharing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gpurun::p2p {
namespace {

// Ranks on `node_of[r]` with affinity `cpus[r]`.
std::vector<PeerInfo> Peers(const std::vector<int>& node_of, const std::vector<std::vector<int>>& cpus) {
  std::vector<PeerInfo> peers;
  for (size_t r = 0; r < node_of.size(); ++r) {
    PeerInfo p;
    p.rank = static_cast<int>(r);
    p.node_id = node_of[r];
    p.host = "h" + std::to_string(node_of[r]);
    p.cpus = cpus[r];
    peers.push_back(p);
  }
  for (PeerInfo& p : peers) {
    p.local_size = static_cast<int>(std::count(node_of.begin(), node_of.end(), p.node_id));
  }
  return peers;
}

TEST(SharesCores, RanksBoundToACoreEachDoNotShare) {
  const auto peers = Peers({0, 0}, {{0}, {1}});
  EXPECT_FALSE(SharesCores(peers, 0));
  EXPECT_FALSE(SharesCores(peers, 1));
}

TEST(SharesCores, UnboundRanksShareOnlyWhenTheyOutnumberTheCpus) {
  EXPECT_FALSE(SharesCores(Peers({0, 0}, {{0, 1}, {0, 1}}), 0));
  const auto eight = Peers(std::vector<int>(8, 0), std::vector<std::vector<int>>(8, {0, 1}));
  for (int r = 0; r < 8; ++r) EXPECT_TRUE(SharesCores(eight, r)) << r;
}

TEST(SharesCores, AJobPinnedToOneCpuShares) {
  const auto peers = Peers({0, 0}, {{0}, {0}});
  EXPECT_TRUE(SharesCores(peers, 0));
  EXPECT_TRUE(SharesCores(peers, 1));
}

TEST(SharesCores, TwoRanksPerCoreShareAndOtherHostsDoNotCount) {
  // Four ranks round-robin on two cores: each core has two.
  const auto peers = Peers({0, 0, 0, 0, 1, 1}, {{0}, {1}, {0}, {1}, {0}, {1}});
  for (int r = 0; r < 4; ++r) EXPECT_TRUE(SharesCores(peers, r)) << r;
  EXPECT_FALSE(SharesCores(peers, 4));  // host 1: one rank per core
  EXPECT_FALSE(SharesCores(peers, 5));
}

TEST(SharesCores, APeerWithoutAffinityCountsAsOverlapping) { EXPECT_TRUE(SharesCores(Peers({0, 0}, {{0}, {}}), 0)); }

}  // namespace
}  // namespace gpurun::p2p
