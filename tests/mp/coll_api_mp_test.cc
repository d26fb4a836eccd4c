// Multi-process collective tests: coll_probe under the project's gpurun with
// 1..4 ranks — the point-to-point collectives and the barrier with exact
// results over the shared-memory wire and across virtual nodes (UCX between
// them), the ring/tree collectives, and a rank killed during a gather
// failing the others with grRemoteError naming it. After each run no process
// of the job and no shared-memory segment may be left.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <set>
#include <string>
#include <tuple>

#include "tests/mp/process_runner.h"

namespace gpurun::mp {
namespace {

const std::string kBin = GPURUN_BIN_DIR;

std::set<std::string> ShmSegments() {
  std::set<std::string> names;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d)) {
      if (std::string(e->d_name).starts_with("gpurun-")) names.insert(e->d_name);
    }
    closedir(d);
  }
  return names;
}

RunOptions CollJob(int ranks, const std::string& mode, bool virtual_nodes = false) {
  RunOptions o;
  o.argv = {kBin + "/gpurun", "-n", std::to_string(ranks)};
  if (virtual_nodes) o.argv.insert(o.argv.end(), {"--nodes", "2"});
  o.argv.insert(o.argv.end(), {kBin + "/coll_probe", mode});
  o.env = {{"UCX_NET_DEVICES", "lo"}, {"UCX_TLS", "tcp,self"}, {"GPURUN_TIMEOUT", "60"}};
  o.limit = 240;
  return o;
}

RunResult RunClean(const RunOptions& o) {
  const std::set<std::string> before = ShmSegments();
  RunResult r = RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << "ran past the test's limit; stderr:\n" << r.err;
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{}) << "processes of the job were left behind";
  std::set<std::string> leaked;
  for (const std::string& s : ShmSegments()) {
    if (!before.contains(s)) leaked.insert(s);
  }
  EXPECT_TRUE(leaked.empty()) << "shared-memory segment left: " << *leaked.begin();
  return r;
}

void ExpectEveryRank(const RunResult& r, int n, const std::string& what) {
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_NE(r.out.find(what + " rank " + std::to_string(rank) + "\n"), std::string::npos) << r.out << r.err;
  }
}

class CollMp : public ::testing::TestWithParam<int> {};

TEST_P(CollMp, PointToPointCollectivesExact) {
  const int n = GetParam();
  RunResult r = RunClean(CollJob(n, "p2p"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryRank(r, n, "coll p2p ok");
}

TEST_P(CollMp, RingTreeCollectivesExact) {
  const int n = GetParam();
  RunResult r = RunClean(CollJob(n, "ringtree"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryRank(r, n, "coll ringtree ok");
}

INSTANTIATE_TEST_SUITE_P(Ranks, CollMp, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

TEST(CollMpVirtualNodes, PointToPointCollectivesAcrossNodes) {
  RunResult r = RunClean(CollJob(4, "p2p", /*virtual_nodes=*/true));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectEveryRank(r, 4, "coll p2p ok");
}

// With auto-cleanup off, every surviving rank's gathers fail naming the dead rank.
TEST(CollMpPeerDeath, KilledRankFailsTheGatherOnTheOthers) {
  for (int n : {2, 4}) {
    RunOptions o = CollJob(n, "killgather");
    o.argv.insert(o.argv.begin() + 1, "--disable-auto-cleanup");
    RunResult r = RunClean(o);
    EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
    const std::string dead = "rank " + std::to_string(n - 1);
    for (int rank = 0; rank < n - 1; ++rank) {
      const std::string line = "rank " + std::to_string(rank) + " gather: remote error: ";
      const size_t at = r.out.find(line);
      ASSERT_NE(at, std::string::npos) << r.out << r.err;
      const std::string rest = r.out.substr(at, r.out.find('\n', at) - at);
      EXPECT_NE(rest.find(dead), std::string::npos) << rest;
    }
    EXPECT_LT(r.seconds, 30.0);
  }
}

// Across two virtual nodes (NET connectors), a rank killed between
// allreduces: every survivor's next allreduce fails within a second with
// grRemoteError naming it, whichever algorithm carries the call: on two
// ranks, oneshot on four (every rank waits on the dead one directly), and
// the ring and the tree on four, where a rank waiting on a live neighbour
// learns it from its wait's check of the other ranks (wait.h).
TEST(CollMpPeerDeath, KilledRankFailsTheAllreduceAcrossNodes) {
  struct Case {
    const char* algo;
    const char* proto;
    int ranks;
  };
  for (const Case& c :
       {Case{"ring", "simple", 2}, Case{"ring", "ll", 2}, Case{"tree", "ll", 2}, Case{"oneshot", "ll", 2},
        Case{"oneshot", "simple", 4}, Case{"ring", "ll", 4}, Case{"tree", "simple", 4}}) {
    const std::string what = std::string(c.algo) + "/" + c.proto + " on " + std::to_string(c.ranks) + " ranks";
    RunOptions o = CollJob(c.ranks, "killallreduce", /*virtual_nodes=*/true);
    o.argv.insert(o.argv.begin() + 1, "--disable-auto-cleanup");
    o.env.push_back({"GPURUN_ALGO", c.algo});
    o.env.push_back({"GPURUN_PROTO", c.proto});
    RunResult r = RunClean(o);
    EXPECT_EQ(r.exit_code, 128 + SIGKILL) << what << "\n" << r.err;
    const std::string dead = "rank " + std::to_string(c.ranks - 1);
    for (int rank = 0; rank < c.ranks - 1; ++rank) {
      const std::string line = "rank " + std::to_string(rank) + " allreduce: remote error: ";
      const size_t at = r.out.find(line);
      ASSERT_NE(at, std::string::npos) << what << "\n" << r.out << r.err;
      const std::string rest = r.out.substr(at, r.out.find('\n', at) - at);
      EXPECT_NE(rest.find(dead), std::string::npos) << what << ": " << rest;
    }
    EXPECT_LT(r.seconds, 30.0) << what;
  }
}

}  // namespace
}  // namespace gpurun::mp
