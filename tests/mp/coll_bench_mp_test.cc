// Multi-process runs of the collective benchmark and the allreduce example
// under the project's gpurun: gpurun-bench's data check must find no wrong
// element in any row (every collective; allreduce over a 8 B..64 KiB sweep,
// also as JSON), and the README's demo job must print its checked result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tests/mp/process_runner.h"

namespace gpurun::mp {
namespace {

const std::string kBin = GPURUN_BIN_DIR;

RunOptions Job(int ranks, std::vector<std::string> program) {
  RunOptions o;
  o.argv = {kBin + "/gpurun", "-n", std::to_string(ranks)};
  o.argv.insert(o.argv.end(), program.begin(), program.end());
  o.env = {{"GPURUN_TIMEOUT", "120"}};
  o.limit = 240;
  return o;
}

// The data rows of gpurun-bench's output (lines not starting with '#'), split into columns.
std::vector<std::vector<std::string>> Rows(const std::string& out) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    rows.push_back(row);
  }
  return rows;
}

// Every row has 13 columns and #wrong 0 in both variants (N/A for the
// barrier, which has no data); returns the number of rows.
size_t ExpectNothingWrong(const RunResult& r) {
  const auto rows = Rows(r.out);
  for (const auto& row : rows) {
    std::string joined;
    for (const auto& w : row) joined += w + " ";
    EXPECT_EQ(row.size(), 13u) << joined;
    if (row.size() != 13u) continue;
    const bool barrier = row[2] == "none";  // no data: nothing checked, no in-place variant
    EXPECT_EQ(row[8], barrier ? "N/A" : "0") << "out of place: " << joined;
    EXPECT_EQ(row[12], barrier ? "N/A" : "0") << "in place: " << joined;
  }
  EXPECT_NE(r.out.find("# Out of bounds values : 0 OK"), std::string::npos) << r.out;
  return rows.size();
}

TEST(CollBench, AllreduceSweepHasNothingWrong) {
  const std::string json = testing::TempDir() + "coll_bench_" + std::to_string(getpid()) + ".json";
  RunResult r =
      RunProcess(Job(2, {kBin + "/gpurun-bench", "allreduce", "-b", "8", "-e", "64K", "-c", "1", "--json", json}));
  ASSERT_FALSE(r.hit_limit) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ExpectNothingWrong(r), 14u) << r.out;  // 8, 16, ..., 65536
  EXPECT_NE(r.out.find("allreduce: 2 ranks"), std::string::npos) << r.out;

  std::ifstream in(json);
  ASSERT_TRUE(in.good()) << "no JSON written to " << json;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t records = 0, clean = 0;
  for (size_t at = text.find("\"size\": "); at != std::string::npos; at = text.find("\"size\": ", at + 1)) ++records;
  for (size_t at = text.find("\"wrong\": 0}"); at != std::string::npos; at = text.find("\"wrong\": 0}", at + 1))
    ++clean;
  EXPECT_EQ(records, 14u) << text;
  EXPECT_EQ(clean, 28u) << text;  // both variants of every row
  EXPECT_EQ(std::remove(json.c_str()), 0) << json;
}

// -m: the timed calls go in groups of 5 (different pieces of the buffers);
// the checked call's data must still be right, and the header says so.
TEST(CollBench, AggregatedCallsInGroupsHaveNothingWrong) {
  for (const char* coll : {"allreduce", "allgather", "bcast"}) {
    SCOPED_TRACE(coll);
    RunResult r = RunProcess(
        Job(3, {kBin + "/gpurun-bench", coll, "-b", "8", "-e", "16K", "-f", "8", "-m", "5", "-n", "20", "-w", "2"}));
    ASSERT_FALSE(r.hit_limit) << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(ExpectNothingWrong(r), 4u) << r.out;  // 8, 64, 512, 4096
    EXPECT_NE(r.out.find("5 calls an iteration in one group (-m), time per call"), std::string::npos) << r.out;
  }
}

class EveryCollective : public ::testing::TestWithParam<std::string> {};

// 3 ranks (not a power of two), every type, every op, root 2, two check iterations.
TEST_P(EveryCollective, EveryTypeAndOpHasNothingWrong) {
  std::vector<std::string> args = {kBin + "/gpurun-bench",
                                   GetParam(),
                                   "-b",
                                   "0",
                                   "-e",
                                   "12K",
                                   "-f",
                                   "7",
                                   "-n",
                                   "3",
                                   "-w",
                                   "1",
                                   "-c",
                                   "2",
                                   "-d",
                                   "all",
                                   "-o",
                                   "all",
                                   "-r",
                                   "2"};
  RunResult r = RunProcess(Job(3, args));
  ASSERT_FALSE(r.hit_limit) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(ExpectNothingWrong(r), 0u);
}

INSTANTIATE_TEST_SUITE_P(Bench, EveryCollective,
                         ::testing::Values("allreduce", "bcast", "reduce", "allgather", "reducescatter", "alltoall",
                                           "gather", "scatter", "barrier"),
                         [](const auto& info) { return info.param; });

TEST(Examples, AllreduceDemoChecksItsResult) {
  RunResult r = RunProcess(Job(4, {kBin + "/allreduce"}));
  ASSERT_FALSE(r.hit_limit) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("allreduce: 4 ranks, 1000003 floats each"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sum[1] = 20\n"), std::string::npos) << r.out;  // (1 % 100 + 1) * (1 + 2 + 3 + 4)
  EXPECT_NE(r.out.find("every element on every rank is right (checked)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpurun::mp
