// Multi-process tests of the launcher and the PMIx bootstrap: real `gpurun`
// runs of mp_probe and hello on this machine. After every run, no process of
// the job may be left (checked through the GR_MP_MARKER variable).
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>
#include <set>

#include "tests/mp/process_runner.h"

namespace gpurun::mp {
namespace {

const std::string kBin = GPURUN_BIN_DIR;
const std::string kGpurun = kBin + "/gpurun";
const std::string kProbe = kBin + "/mp_probe";

RunResult RunJob(RunOptions o) {
  RunResult r = RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << "the job ran past the test's limit; stderr:\n" << r.err;
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{}) << "processes of the job were left behind";
  return r;
}

RunResult Gpurun(std::vector<std::string> args, RunOptions o = {}) {
  o.argv = {kGpurun};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  return RunJob(std::move(o));
}

class RankCounts : public ::testing::TestWithParam<int> {};

TEST_P(RankCounts, HelloSeesEveryRank) {
  const int n = GetParam();
  RunResult r = Gpurun({"-n", std::to_string(n), kBin + "/hello"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CountLines(r.out, "hello from rank "), n) << r.out;
  EXPECT_NE(r.out.find("rank 0: all " + std::to_string(n) + " ranks see each other (1 node)"), std::string::npos)
      << r.out;
}

TEST_P(RankCounts, PeerTableAndIdentity) {
  const int n = GetParam();
  RunResult r = Gpurun({"-n", std::to_string(n), kProbe, "peers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < n; ++rank) {
    const std::string line = "ok rank " + std::to_string(rank) + " size " + std::to_string(n) + " local " +
                             std::to_string(rank) + "/" + std::to_string(n) + "\n";
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "missing from:\n" << r.out;
  }
  EXPECT_EQ(CountLines(r.out, "ok rank "), n);
}

INSTANTIATE_TEST_SUITE_P(Gpurun, RankCounts, ::testing::Values(1, 2, 4, 8));

TEST(Failures, FirstFailingExitCodeIsTheJobs) {
  RunResult r = Gpurun({"-n", "4", kProbe, "exit", "2", "3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("rank 2"), std::string::npos) << r.err;
}

TEST(Failures, RankKilledEndsJobWithinTwoSeconds) {
  RunResult r = Gpurun({"-n", "4", kProbe, "sigkill", "1"});
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  EXPECT_LT(r.seconds, 2.0);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << r.err;
}

TEST(Failures, AbortCodeIsTheJobs) {
  RunResult r = Gpurun({"-n", "4", kProbe, "abort", "2", "7"});
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_NE(r.err.find("rank 2"), std::string::npos) << r.err;
  EXPECT_LT(r.seconds, 5.0);
}

TEST(Failures, TimeoutKillsJobAndListsRanks) {
  RunResult r = Gpurun({"-n", "3", "--timeout", "1", kProbe, "sleep", "30"});
  EXPECT_EQ(r.exit_code, 124) << r.err;
  EXPECT_GE(r.seconds, 1.0);
  EXPECT_LT(r.seconds, 5.0);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_TRUE(std::regex_search(r.err, std::regex("\\b" + std::to_string(rank) + " \\(pid [0-9]+"))) << r.err;
  }
}

TEST(Signals, SigtermToGpurunTearsDownJob) {
  RunOptions o;
  o.signal = SIGTERM;
  o.signal_after = 1.0;
  RunResult r = Gpurun({"-n", "4", kProbe, "sleep", "30"}, o);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_LT(r.seconds, 4.0);
}

TEST(Signals, SigintToGpurunTearsDownJob) {
  RunOptions o;
  o.signal = SIGINT;
  o.signal_after = 1.0;
  RunResult r = Gpurun({"-n", "2", kProbe, "sleep", "30"}, o);
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_LT(r.seconds, 4.0);
}

TEST(Io, StdinReachesRankZeroOnly) {
  RunOptions o;
  o.stdin_data = "first line\nsecond\n";
  RunResult r = Gpurun({"-n", "3", kProbe, "stdin"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 read 18 bytes: first line\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 read 0 bytes: \n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 2 read 0 bytes: \n"), std::string::npos) << r.out;
}

TEST(Io, ExportAndRankVariables) {
  RunOptions o;
  o.env = {{"BAZ", "qux"}};
  RunResult r = Gpurun({"-n", "2", "-x", "FOO=bar", "-x", "BAZ", kProbe, "env", "FOO", "BAZ", "GPURUN_RANK",
                        "GPURUN_LOCAL_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALRANKID"},
                       o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& r_ : std::vector<std::string>{"0", "1"}) {
    for (const std::string& kv :
         std::vector<std::string>{"FOO=bar", "BAZ=qux", "GPURUN_RANK=" + r_, "GPURUN_LOCAL_SIZE=2",
                                  "OMPI_COMM_WORLD_RANK=" + r_, "OMPI_COMM_WORLD_SIZE=2", "MPI_LOCALRANKID=" + r_}) {
      EXPECT_NE(r.out.find("rank " + r_ + " " + kv + "\n"), std::string::npos) << kv << " for rank " << r_ << "\n"
                                                                               << r.out;
    }
  }
}

TEST(Io, VirtualNodesSetHostIdentity) {
  RunResult r =
      Gpurun({"-n", "4", "--nodes", "2", kProbe, "env", "GPURUN_HOST_ID", "GPURUN_LOCAL_RANK", "UCX_NET_DEVICES"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (int rank = 0; rank < 4; ++rank) {
    const std::string p = "rank " + std::to_string(rank) + " ";
    EXPECT_TRUE(std::regex_search(r.out, std::regex(p + "GPURUN_HOST_ID=.*-vnode" + std::to_string(rank / 2) + "\n")))
        << r.out;
    EXPECT_NE(r.out.find(p + "GPURUN_LOCAL_RANK=" + std::to_string(rank % 2) + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(p + "UCX_NET_DEVICES=lo\n"), std::string::npos) << r.out;
  }
}

// Every stdout line must be one whole line of one rank, optionally tagged.
void ExpectWholeLines(const std::string& out, bool tagged, int ranks, int lines) {
  const std::regex line_re(tagged ? R"(^\[(\d+)\] rank (\d+) line (\d+) (\d{200})$)"
                                  : R"(^()rank (\d+) line (\d+) (\d{200})$)");
  std::vector<std::set<int>> seen(ranks);
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, line_re)) << "broken line: " << line.substr(0, 120);
    const int rank = std::stoi(m[2]);
    if (tagged) {
      EXPECT_EQ(std::stoi(m[1]), rank);
    }
    EXPECT_EQ(m[4].str(), std::string(200, static_cast<char>('0' + rank)));
    seen[rank].insert(std::stoi(m[3]));
  }
  for (int rank = 0; rank < ranks; ++rank) EXPECT_EQ(static_cast<int>(seen[rank].size()), lines) << rank;
}

TEST(Io, TaggedOutputKeepsWholeLines) {
  RunResult r = Gpurun({"-n", "4", "--tag-output", kProbe, "lines", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectWholeLines(r.out, true, 4, 300);
}

TEST(Io, UntaggedOutputKeepsWholeLines) {
  RunResult r = Gpurun({"-n", "4", kProbe, "lines", "300"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectWholeLines(r.out, false, 4, 300);
}

TEST(Singleton, RunsWithoutGpurun) {
  RunOptions o;
  o.argv = {kProbe, "peers"};
  RunResult r = RunJob(o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "ok rank 0 size 1 local 0/1\n");
}

TEST(Params, BadValueFailsInitNamingTheVariable) {
  RunOptions o;
  o.argv = {kProbe, "init"};
  o.env = {{"GPURUN_TIMEOUT", "soon"}};
  RunResult r = RunJob(o);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("grInit: invalid argument: GPURUN_TIMEOUT='soon'"), std::string::npos) << r.out;
}

TEST(Params, LauncherRejectsBadValue) {
  RunOptions o;
  o.env = {{"GPURUN_DEBUG", "LOUD"}};
  RunResult r = Gpurun({"-n", "2", kProbe, "peers"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("GPURUN_DEBUG"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Params, CollectiveOverrideGrammarIsCheckedOnBothSides) {
  RunOptions o;
  o.env = {{"GPURUN_ALGO", "rign"}};
  RunResult r = Gpurun({"-n", "2", kProbe, "peers"}, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("GPURUN_ALGO"), std::string::npos) << r.err;
  o.argv = {kProbe, "init"};
  o.env = {{"GPURUN_PROTO", "^ll,ll128,simple"}};
  r = RunJob(o);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("grInit: invalid argument: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPURUN_PROTO"), std::string::npos) << r.out;
}

TEST(Params, PrintParamsShowsValueAndSource) {
  RunOptions o;
  o.env = {{"GPURUN_TIMEOUT", "45s"}};
  RunResult r = Gpurun({"--print-params"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(GPURUN_TIMEOUT\s+45s\s+environment)"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(GPURUN_DEBUG\s+WARN\s+default)"))) << r.out;
}

TEST(Usage, MissingProgramIsAnError) {
  RunResult r = Gpurun({"-n", "2", "/nonexistent/program"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/program"), std::string::npos) << r.err;
}

TEST(Usage, BadRankCountIsAnError) {
  for (const char* n : {"0", "-1", "x"}) {
    RunResult r = Gpurun({"-n", n, kProbe});
    EXPECT_EQ(r.exit_code, 2) << n;
    EXPECT_FALSE(r.err.empty());
  }
}

TEST(Binding, ReportBindingsToCores) {
  RunResult r = Gpurun({"-n", "2", "--bind-to", "core", "--report-bindings", kProbe, "peers"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("rank 0 bound to core"))) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, std::regex("rank 1 bound to core"))) << r.err;
}

}  // namespace
}  // namespace gpurun::mp
