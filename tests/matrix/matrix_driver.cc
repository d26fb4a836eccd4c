// One coll_matrix job under gpurun and the checks of its output
// (matrix_driver.h).
#include "tests/matrix/matrix_driver.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tests/mp/process_runner.h"

namespace gpurun::matrix {
namespace {

const std::string kBin = GPURUN_BIN_DIR;

// A collective that hangs fails after this instead of GPURUN_TIMEOUT's default.
constexpr const char* kJobTimeout = "120";

std::string Joined(const std::vector<Coll>& colls) {
  std::string text;
  for (Coll c : colls) text += std::string(text.empty() ? "" : ",") + CollName(c);
  return text;
}

std::string EnvValue(const char* name) { return name == std::string("auto") ? "" : name; }

}  // namespace

std::vector<Variant> AllVariants() {
  std::vector<Variant> v = {{Algo::kAuto, Proto::kAuto}};
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kOneShot}) {
    for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple}) v.push_back({a, p});
  }
  return v;
}

std::string VariantName(const Variant& v) {
  if (v.algo == Algo::kAuto && v.proto == Proto::kAuto) return "auto";
  return std::string(AlgoName(v.algo)) + "_" + ProtoName(v.proto);
}

void RunMatrixJob(const MatrixJob& job) {
  mp::RunOptions o;
  o.argv = {kBin + "/gpurun",
            "-n",
            std::to_string(job.ranks),
            kBin + "/coll_matrix",
            std::string("--algo=") + AlgoName(job.variant.algo),
            std::string("--proto=") + ProtoName(job.variant.proto),
            "--colls=" + Joined(job.colls)};
  o.argv.insert(o.argv.end(), job.slice.begin(), job.slice.end());
  // Set even when "auto" (empty: no restriction), so the caller's environment cannot leak in.
  o.env = {{"GPURUN_ALGO", EnvValue(AlgoName(job.variant.algo))},
           {"GPURUN_PROTO", EnvValue(ProtoName(job.variant.proto))},
           {"GPURUN_TIMEOUT", kJobTimeout}};
  o.limit = job.limit_s;
  std::string command;
  for (const std::string& a : o.argv) command += a + " ";
  SCOPED_TRACE("GPURUN_ALGO=" + o.env[0].second + " GPURUN_PROTO=" + o.env[1].second + " " + command);

  const mp::RunResult r = mp::RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << "killed after " << job.limit_s << " s\n" << r.out << r.err;
  EXPECT_EQ(mp::LeftoverProcesses(r.marker), std::vector<int>{}) << "processes of the job were left behind";
  EXPECT_EQ(r.exit_code, 0) << r.err;

  const std::regex summary(R"(coll_matrix: (\d+) checks, (\d+) failures, (\d+) skipped)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, summary)) << "no summary line\n" << r.out << r.err;
  const uint64_t checks = std::stoull(m[1]), failures = std::stoull(m[2]), skipped = std::stoull(m[3]);
  EXPECT_EQ(failures, 0u) << r.out;

  // Exactly the expected collectives were rejected (each prints one skip line);
  // every other one ran checks (a job of rejected collectives only runs none).
  std::set<std::string> expected, seen;
  for (Coll c : job.colls) {
    if (ExpectRejected(c, job.variant.algo, job.variant.proto)) expected.insert(CollName(c));
  }
  EXPECT_EQ(checks > 0, expected.size() < job.colls.size()) << checks << " checks";
  const std::regex skip_line(R"(coll_matrix: (\S+) algo=\S+ proto=\S+: skipped: )");
  std::string skip_lines;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), skip_line); it != std::sregex_iterator(); ++it) {
    seen.insert((*it)[1]);
    skip_lines += it->str() + "...\n";
  }
  EXPECT_EQ(seen, expected) << "the collectives rejected are not the ones the variant must be rejected for\n"
                            << skip_lines;
  EXPECT_EQ(skipped > 0, !expected.empty()) << skipped << " calls skipped";
}

}  // namespace gpurun::matrix
