// Device-buffer point-to-point as real jobs (ctest label gpu): `gpurun -n 2`
// (one GPU each when there are two) and `gpurun -n 4` (two ranks a GPU
// then) run device_p2p_check, whose checks are listed there, and the same
// two with GPURUN_GPU_PATH=host run its stream phases with every pair's
// FIFOs in host shared memory (the path of GPUs without peer access); a job must
// exit 0 with a summary of 0 failures and no FAIL line. Skipped, saying why,
// without a CUDA device (or in a build without CUDA).
#include <gtest/gtest.h>

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
};

// What gtest prints for a case (its name, not its bytes).
void PrintTo(const P2pCase& c, std::ostream* os) {
  *os << c.ranks << " ranks" << (c.host_path ? ", host path" : "") << (c.group ? ", group" : "")
      << (c.nodes > 1 ? ", " + std::to_string(c.nodes) + " nodes" : "");
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
  // A hang fails after GPURUN_TIMEOUT instead of its default; no forced
  // algorithm of the caller's environment leaks into the job's collectives.
  o.env = {{"GPURUN_TIMEOUT", "120"},
           {"GPURUN_ALGO", ""},
           {"GPURUN_PROTO", ""},
           {"GPURUN_GPU_PATH", c.host_path ? "host" : "auto"}};
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
}

INSTANTIATE_TEST_SUITE_P(Ranks, DeviceP2p,
                         ::testing::Values(P2pCase{2, false}, P2pCase{4, false}, P2pCase{2, true}, P2pCase{4, true},
                                           P2pCase{2, false, true}, P2pCase{3, false, true}, P2pCase{4, false, true},
                                           P2pCase{2, false, false, 2}, P2pCase{4, false, false, 2},
                                           P2pCase{4, false, true, 2}),
                         [](const ::testing::TestParamInfo<P2pCase>& info) {
                           return std::to_string(info.param.ranks) + "ranks" +
                                  (info.param.host_path ? "_hostpath" : "") + (info.param.group ? "_group" : "") +
                                  (info.param.nodes > 1 ? "_" + std::to_string(info.param.nodes) + "nodes" : "");
                         });

}  // namespace
}  // namespace gpurun::gpu_test
