// Multi-process tests of the MPI layer: mpi_probe (plain MPI C built with
// build/bin/gpurun-cc) under the project's gpurun on 1 to 4 ranks, every
// function group checked against MPI semantics; MPI_Ssend over the UCX wire;
// MPI_ERRORS_ARE_FATAL and MPI_Abort ending the job; waits failing on a dead
// peer; the wrappers' --showme and a C++ build.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/mp/process_runner.h"

namespace gpurun::mp {
namespace {

const std::string kBin = GPURUN_BIN_DIR;

RunOptions Job(int ranks, std::vector<std::string> program) {
  RunOptions o;
  o.argv = {kBin + "/gpurun", "-n", std::to_string(ranks)};
  o.argv.insert(o.argv.end(), program.begin(), program.end());
  o.env = {{"GPURUN_TIMEOUT", "60"}};
  o.limit = 180;
  return o;
}

class MpiGroups : public ::testing::TestWithParam<int> {};

TEST_P(MpiGroups, EveryGroupPasses) {
  const int n = GetParam();
  RunResult r = RunProcess(Job(n, {kBin + "/mpi_probe", "all"}));
  EXPECT_FALSE(r.hit_limit) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int rank = 0; rank < n; ++rank) {
    EXPECT_NE(r.out.find("mpi all ok rank " + std::to_string(rank) + "\n"), std::string::npos) << r.out << r.err;
  }
  EXPECT_EQ(r.out.find("FAIL"), std::string::npos) << r.out;
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{});
}

INSTANTIATE_TEST_SUITE_P(Ranks, MpiGroups, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

// MPI_Ssend / MPI_Issend over the UCX wire (forced, on loopback TCP), the wire
// between nodes: the sync note and the receiver's acknowledgement travel as
// flagged UCX frames; the Issend stays incomplete until the receive matches.
TEST(MpiSsend, OverTheUcxWire) {
  RunOptions o = Job(3, {kBin + "/mpi_probe", "ssend"});
  o.env.push_back({"GPURUN_P2P_TRANSPORT", "ucx"});
  o.env.push_back({"UCX_NET_DEVICES", "lo"});
  o.env.push_back({"UCX_TLS", "tcp,self"});
  RunResult r = RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_NE(r.out.find("mpi ssend ok rank " + std::to_string(rank) + "\n"), std::string::npos) << r.out << r.err;
  }
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{});
}

TEST(MpiErrors, FatalHandlerPrintsTheErrorAndEndsTheJob) {
  RunResult r = RunProcess(Job(2, {kBin + "/mpi_probe", "fatal"}));
  EXPECT_FALSE(r.hit_limit) << r.err;
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("MPI_Send: MPI_ERR_RANK"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MPI_ERRORS_ARE_FATAL"), std::string::npos) << r.err;
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{});
}

// Rank 1 killed while rank 0 waits in MPI_Waitany / MPI_Waitsome on mixes of
// receives from it (a derived datatype's, staged, and plain ones; with and
// without a nonblocking barrier among them): both waits fail at once with
// MPI_ERR_PROC_ABORTED naming rank 1, not after GPURUN_TIMEOUT (60 s here).
TEST(MpiErrors, WaitsOnMixedRequestsFailNamingADeadPeer) {
  RunOptions o = Job(2, {kBin + "/mpi_probe", "peerdeath"});
  o.argv.insert(o.argv.begin() + 1, "--disable-auto-cleanup");
  RunResult r = RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << r.err;
  EXPECT_EQ(r.exit_code, 128 + 9) << r.out << r.err;  // rank 1's SIGKILL
  EXPECT_NE(r.out.find("waitany [0]: MPI_ERR_PROC_ABORTED"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("waitsome ["), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("waitsome status [0]: MPI_ERR_PROC_ABORTED"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("from rank 1 (world 1) tag 1 on context 0: rank 1 (pid "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from rank 1 (world 1) tag 3 on context 0: rank 1 (pid "), std::string::npos) << r.out;
  EXPECT_LT(r.seconds, 30.0);
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{});
}

TEST(MpiErrors, AbortEndsTheJobWithItsCode) {
  RunResult r = RunProcess(Job(3, {kBin + "/mpi_probe", "abort"}));
  EXPECT_FALSE(r.hit_limit) << r.err;
  EXPECT_EQ(r.exit_code, 7) << r.err;
  EXPECT_EQ(LeftoverProcesses(r.marker), std::vector<int>{});
}

TEST(MpiWrappers, ShowmeNamesCompilerHeadersAndLibraries) {
  RunOptions o;
  o.argv = {kBin + "/gpurun-cc", "--showme", "x.c", "-o", "x"};
  RunResult r = RunProcess(o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compat/mpi/include"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-lgpurun_mpi"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x.c -o x"), std::string::npos) << r.out;
  o.argv = {kBin + "/gpurun-cc", "--showme:compile"};
  r = RunProcess(o);
  EXPECT_EQ(r.out.find("-lgpurun"), std::string::npos) << r.out;
  o.argv = {kBin + "/gpurun-cxx", "--showme", "-c", "y.cc"};
  r = RunProcess(o);
  EXPECT_EQ(r.out.find("-lgpurun_mpi"), std::string::npos) << "compile-only commands do not link: " << r.out;
  o.argv = {kBin + "/gpurun-cc", "--showme:bogus"};
  EXPECT_EQ(RunProcess(o).exit_code, 2);
}

TEST(MpiWrappers, CxxProgramBuildsAndRuns) {
  const std::string dir = ::testing::TempDir();
  const std::string src = dir + "/mpi_wrapper_hello.cc", exe = dir + "/mpi_wrapper_hello";
  std::ofstream(src) << "#include <mpi.h>\n#include <cstdio>\n#include <vector>\n"
                        "int main(int argc, char** argv) {\n"
                        "  MPI_Init(&argc, &argv);\n  int r, n;\n"
                        "  MPI_Comm_rank(MPI_COMM_WORLD, &r);\n  MPI_Comm_size(MPI_COMM_WORLD, &n);\n"
                        "  std::vector<int> all(n);\n"
                        "  MPI_Allgather(&r, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);\n"
                        "  std::printf(\"rank %d of %d sees %d\\n\", r, n, all[n - 1]);\n"
                        "  MPI_Finalize();\n}\n";
  RunOptions build;
  build.argv = {kBin + "/gpurun-cxx", "-O1", src, "-o", exe};
  RunResult b = RunProcess(build);
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  RunResult r = RunProcess(Job(2, {exe}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 of 2 sees 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 of 2 sees 1"), std::string::npos) << r.out;
  std::remove(src.c_str());
  std::remove(exe.c_str());
}

}  // namespace
}  // namespace gpurun::mp
