// Multi-process point-to-point tests: p2p_probe and the examples under the
// project's gpurun, over the shared-memory wire, the UCX wire (forced, on
// loopback TCP) and virtual nodes (shm inside a node, UCX across). After
// each run no process of the job and no shared-memory segment may be left.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <set>
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

enum class Wire { kShm, kUcx, kVirtualNodes };

const char* WireName(Wire w) { return w == Wire::kShm ? "shm" : w == Wire::kUcx ? "ucx" : "vnodes"; }

// gpurun arguments and environment that select a wire. UCX stays on loopback.
RunOptions JobFor(Wire wire, int ranks, std::vector<std::string> program) {
  RunOptions o;
  o.argv = {kBin + "/gpurun", "-n", std::to_string(ranks)};
  o.env = {{"UCX_NET_DEVICES", "lo"}, {"UCX_TLS", "tcp,self"}};
  if (wire == Wire::kShm) o.env.push_back({"GPURUN_P2P_TRANSPORT", "shm"});
  if (wire == Wire::kUcx) o.env.push_back({"GPURUN_P2P_TRANSPORT", "ucx"});
  if (wire == Wire::kVirtualNodes) {
    o.argv.push_back("--nodes");
    o.argv.push_back("2");
  }
  o.argv.insert(o.argv.end(), program.begin(), program.end());
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

class P2p : public ::testing::TestWithParam<std::tuple<Wire, int>> {};

TEST_P(P2p, AllChecks) {
  const auto [wire, n] = GetParam();
  RunResult r = RunClean(JobFor(wire, n, {kBin + "/p2p_probe", "all", std::to_string(n)}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_NE(r.out.find("p2p ok rank " + std::to_string(rank) + "\n"), std::string::npos) << r.out << r.err;
  }
}

TEST_P(P2p, RingExample) {
  const auto [wire, n] = GetParam();
  RunResult r = RunClean(JobFor(wire, n, {kBin + "/ring", "5"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ring: 5 laps around " + std::to_string(n) +
                       " ranks, token = " + std::to_string(n * (n - 1) / 2) + " each time (checked)"),
            std::string::npos)
      << r.out;
}

std::string P2pName(const ::testing::TestParamInfo<std::tuple<Wire, int>>& info) {
  return std::string(WireName(std::get<0>(info.param))) + "_" + std::to_string(std::get<1>(info.param)) + "ranks";
}

INSTANTIATE_TEST_SUITE_P(Wires, P2p,
                         ::testing::Combine(::testing::Values(Wire::kShm, Wire::kUcx, Wire::kVirtualNodes),
                                            ::testing::Values(2, 3, 4, 8)),
                         P2pName);

class PeerDeath : public ::testing::TestWithParam<Wire> {};

// With auto-cleanup off, the surviving rank's receive fails naming the dead rank.
TEST_P(PeerDeath, PendingReceiveFailsNamingTheRank) {
  RunOptions o = JobFor(GetParam(), 2, {kBin + "/p2p_probe", "killpeer"});
  o.argv.insert(o.argv.begin() + 1, "--disable-auto-cleanup");
  o.env.push_back({"GPURUN_TIMEOUT", "60"});
  RunResult r = RunClean(o);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  EXPECT_NE(r.out.find("rank 0 receive from rank 1: remote error: "), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("rank 1"), std::string::npos);
  EXPECT_LT(r.seconds, 30.0);
}

// By default the launcher ends the whole job at once.
TEST_P(PeerDeath, DefaultTearsDownJobFast) {
  RunResult r = RunClean(JobFor(GetParam(), 4, {kBin + "/p2p_probe", "killpeer"}));
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  EXPECT_LT(r.seconds, 3.0);
}

INSTANTIATE_TEST_SUITE_P(Wires, PeerDeath, ::testing::Values(Wire::kShm, Wire::kUcx),
                         [](const auto& info) { return std::string(WireName(info.param)); });

TEST(Examples, PingpongChecksEveryMessage) {
  RunResult r = RunClean(JobFor(Wire::kShm, 2, {kBin + "/pingpong", "1048576", "20"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pingpong: every message came back intact"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpurun::mp
