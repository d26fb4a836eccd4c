// Device-buffer point-to-point as real jobs (ctest label gpu): `gpurun -n 2`
// (one GPU each when there are two) and `gpurun -n 4` (two ranks a GPU
// then) run device_p2p_check, whose checks are listed there, and the same
// two with GPURUN_GPU_PATH=host run its stream phases with every pair's
// FIFOs in host shared memory (the path of GPUs without peer access); a job must
// exit 0 with a summary of 0 failures and no FAIL line. Skipped, saying why,
// without a CUDA device (or in a build without CUDA).
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tests/gpu/gpu_env.h"
#include "tests/mp/process_runner.h"

namespace gpurun::gpu_test {
namespace {

struct P2pCase {
  int ranks;
  bool host_path;      // GPURUN_GPU_PATH=host: stream-ordered FIFOs in host shared memory
  bool group = false;  // only the group phase, with FIFOs (2 x 256 KiB a pair) smaller than its messages
  int nodes = 1;       // gpurun --nodes: across simulated hosts GR_STREAM_HOST messages go over UCX as host
                       // copies, stream-ordered ones over NET connections (coll/host/gpu_net_proxy.h)
  // Set: only the coll-group phase, under GPURUN_ALGO=algo GPURUN_PROTO=proto
  // ("" each: the tuner's choice); with a ring or tree forced for every
  // call, the log must show a launch of several collectives.
  const char* algo = nullptr;
  const char* proto = "";
  // With GPURUN_ALGO=allreduce:oneshot: only the coll-direct phase, whose
  // log must show launches of several one-shot allreduces.
  bool direct_only = false;
};

bool CollGroup(const P2pCase& c) { return c.algo != nullptr; }
bool ExpectFused(const P2pCase& c) { return CollGroup(c) && *c.algo != '\0'; }
const char* CollPhases(const P2pCase& c) {
  return c.direct_only ? "--phases=coll-direct" : "--phases=coll-group,coll-direct";
}

// What gtest prints for a case (its name, not its bytes).
void PrintTo(const P2pCase& c, std::ostream* os) {
  *os << c.ranks << " ranks" << (c.host_path ? ", host path" : "") << (c.group ? ", group" : "")
      << (c.nodes > 1 ? ", " + std::to_string(c.nodes) + " nodes" : "");
  if (CollGroup(c)) *os << ", collective groups, GPURUN_ALGO=" << c.algo << " GPURUN_PROTO=" << c.proto;
  if (c.direct_only) *os << ", one-shot batches only";
}

// How many lines of `output` match `launch` (its group 1: the calls of a
// launch), and the most calls one launch had.
int CountLaunches(const std::string& output, const std::regex& launch, int* most) {
  int launches = 0;
  *most = 0;
  for (auto it = std::sregex_iterator(output.begin(), output.end(), launch); it != std::sregex_iterator(); ++it) {
    ++launches;
    *most = std::max(*most, std::stoi((*it)[1]));
  }
  return launches;
}

std::string CaseName(const P2pCase& c) {
  std::string name = std::to_string(c.ranks) + "ranks" + (c.host_path ? "_hostpath" : "") + (c.group ? "_group" : "") +
                     (c.nodes > 1 ? "_" + std::to_string(c.nodes) + "nodes" : "");
  if (CollGroup(c)) {
    name += std::string("_collgroup_") + (*c.algo != '\0' ? c.algo : "tuned") + (*c.proto != '\0' ? "_" : "") + c.proto;
    for (char& ch : name) {
      if (ch == ':' || ch == ',') ch = '_';
    }
  }
  return name;
}

class DeviceP2p : public ::testing::TestWithParam<P2pCase> {
 protected:
  void SetUp() override {
    if (!NoGpuReason().empty()) GTEST_SKIP() << NoGpuReason();
    RecordProperty("gpus", GpuCount());
  }
};

TEST_P(DeviceP2p, ExactResults) {
  const std::string bin = matrix::TestBinDir("device_p2p_check");
  mp::RunOptions o;
  const P2pCase& c = GetParam();
  o.argv = {matrix::TestLauncher(bin), "-n", std::to_string(c.ranks)};
  if (c.nodes > 1) o.argv.insert(o.argv.end(), {"--nodes", std::to_string(c.nodes)});
  o.argv.push_back(bin + "/device_p2p_check");
  if (c.host_path) o.argv.push_back("--phases=stream,stream-errors,pool");
  if (c.group) o.argv.push_back("--phases=group");
  if (CollGroup(c)) o.argv.push_back(CollPhases(c));
  // A hang fails after GPURUN_TIMEOUT instead of its default; no forced
  // algorithm of the caller's environment leaks into the job's collectives.
  o.env = {{"GPURUN_TIMEOUT", "120"},
           {"GPURUN_ALGO", CollGroup(c) ? c.algo : ""},
           {"GPURUN_PROTO", CollGroup(c) ? c.proto : ""},
           {"GPURUN_GPU_PATH", c.host_path ? "host" : "auto"}};
  if (ExpectFused(c)) {
    o.env.push_back({"GPURUN_DEBUG", "INFO"});
    o.env.push_back({"GPURUN_DEBUG_SUBSYS", "COLL"});
    // 4 channels a call: the 11 independent calls' works fit one launch
    // whatever the tuner would take for the 4 MiB one.
    o.env.push_back({"GPURUN_NCHANNELS", "4"});
  }
  if (c.nodes > 1) o.env.push_back({"UCX_NET_DEVICES", "lo"});
  if (c.group) {
    o.env.push_back({"GPURUN_P2P_NCHANNELS", "2"});
    o.env.push_back({"GPURUN_P2P_BUFFSIZE", "262144"});
  }
  o.limit = 600;
  std::string command;
  for (const std::string& a : o.argv) command += a + " ";
  SCOPED_TRACE(command);

  const mp::RunResult r = mp::RunProcess(o);
  const std::string output = r.out + r.err;
  EXPECT_FALSE(r.hit_limit) << "killed after " << o.limit << " s\n" << output;
  EXPECT_EQ(mp::LeftoverProcesses(r.marker), std::vector<int>{}) << "processes of the job were left behind";
  EXPECT_EQ(r.exit_code, 0) << output;
  EXPECT_EQ(mp::CountLines(r.out, "FAIL "), 0) << output;
  const std::regex summary(R"(device_p2p_check: (\d+) checks, (\d+) failures, (\d+) skipped on (\d+) ranks)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, summary)) << "no summary line\n" << output;
  EXPECT_GT(std::stoull(m[1]), 0u) << output;
  EXPECT_EQ(m[2].str(), "0") << output;
  EXPECT_EQ(std::stoi(m[4]), c.ranks) << output;
  if (m[3].str() != "0") std::printf("device_p2p_check skipped %s check(s):\n%s", m[3].str().c_str(), output.c_str());
  if (ExpectFused(c) && c.direct_only) {
    // The small calls filled one-shot launches on every rank, both stream
    // modes and the graph.
    int most = 0;
    const int launches =
        CountLaunches(output, std::regex(R"(GPU group: (\d+) one-shot allreduces in one launch)"), &most);
    EXPECT_GE(launches, 3 * c.ranks) << output;
    EXPECT_EQ(most, 8) << output;
  } else if (ExpectFused(c)) {
    // The independent calls (11, or the 7 allreduces when only those are on
    // the tree) went out in one launch on every rank, both stream modes.
    int most = 0;
    const int launches = CountLaunches(output, std::regex(R"(GPU group: (\d+) collectives in one launch)"), &most);
    EXPECT_GE(launches, 2 * c.ranks) << output;
    EXPECT_GE(most, std::string(c.algo).find("tree") != std::string::npos ? 7 : 11) << output;
  }
}

INSTANTIATE_TEST_SUITE_P(Ranks, DeviceP2p,
                         ::testing::Values(P2pCase{2, false}, P2pCase{4, false}, P2pCase{2, true}, P2pCase{4, true},
                                           P2pCase{2, false, true}, P2pCase{3, false, true}, P2pCase{4, false, true},
                                           P2pCase{2, false, false, 2}, P2pCase{4, false, false, 2},
                                           P2pCase{4, false, true, 2}),
                         [](const ::testing::TestParamInfo<P2pCase>& info) { return CaseName(info.param); });

// Collective groups: the tuner's choices, the ring forced with each
// protocol, allreduce forced onto the tree, and the ring across two
// simulated hosts (NET: LL and Simple).
INSTANTIATE_TEST_SUITE_P(
    CollGroups, DeviceP2p,
    ::testing::Values(P2pCase{2, false, false, 1, ""}, P2pCase{4, false, false, 1, ""},
                      P2pCase{2, false, false, 1, "ring", "ll"}, P2pCase{3, false, false, 1, "ring", "ll128"},
                      P2pCase{2, false, false, 1, "ring", "simple"}, P2pCase{4, false, false, 1, "allreduce:tree", ""},
                      P2pCase{2, false, false, 2, "ring", "ll"}, P2pCase{4, false, false, 2, "ring", "simple"},
                      P2pCase{2, false, false, 1, "allreduce:oneshot", "", true},
                      P2pCase{3, false, false, 1, "allreduce:oneshot", "", true}),
    [](const ::testing::TestParamInfo<P2pCase>& info) { return CaseName(info.param); });

}  // namespace
}  // namespace gpurun::gpu_test
