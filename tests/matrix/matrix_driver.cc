// One coll_matrix job under gpurun and the checks of its output
// (matrix_driver.h).
#include "tests/matrix/matrix_driver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include "tests/mp/process_runner.h"

namespace gpurun::matrix {
namespace {

// A collective that hangs fails after this instead of GPURUN_TIMEOUT's default.
constexpr const char* kJobTimeout = "120";

std::string EnvValue(const char* name) { return name == std::string("auto") ? "" : name; }

std::string NonEmptyEnv(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// coll_matrix's flags for the job's device mode.
std::vector<std::string> DeviceFlags(const MatrixJob& job) {
  if (!job.device.on) return {};
  std::vector<Coll> required;
  for (Coll c : job.colls) {
    const auto& optional = job.device.may_be_unsupported;
    if (std::find(optional.begin(), optional.end(), c) == optional.end()) required.push_back(c);
  }
  std::vector<std::string> flags = {"--device=cuda",
                                    "--device-collectives=" + (required.empty() ? "none" : JoinColls(required))};
  if (job.device.stream) flags.push_back("--stream");
  return flags;
}

mp::RunOptions Command(const MatrixJob& job) {
  const std::string bin = TestBinDir("coll_matrix");
  mp::RunOptions o;
  o.argv = {TestLauncher(bin), "-n", std::to_string(job.ranks)};
  if (job.nodes > 1) o.argv.insert(o.argv.end(), {"--nodes", std::to_string(job.nodes)});
  o.argv.insert(o.argv.end(), job.wrapper.begin(), job.wrapper.end());
  o.argv.insert(o.argv.end(),
                {bin + "/coll_matrix", std::string("--algo=") + AlgoName(job.variant.algo),
                 std::string("--proto=") + ProtoName(job.variant.proto), "--colls=" + JoinColls(job.colls)});
  o.argv.insert(o.argv.end(), job.slice.begin(), job.slice.end());
  const std::vector<std::string> device = DeviceFlags(job);
  o.argv.insert(o.argv.end(), device.begin(), device.end());
  // Set even when "auto" (empty: no restriction), so the caller's environment cannot leak in.
  o.env = {{"GPURUN_ALGO", EnvValue(AlgoName(job.variant.algo))},
           {"GPURUN_PROTO", EnvValue(ProtoName(job.variant.proto))},
           {"GPURUN_TIMEOUT", kJobTimeout}};
  o.env.insert(o.env.end(), job.env.begin(), job.env.end());
  o.limit = job.limit_s;
  return o;
}

// The first group of every match of `pattern` in `text`, and the matches in *lines.
std::set<std::string> Matches(const std::string& text, const std::regex& pattern, std::string* lines) {
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[1]);
    *lines += it->str() + "...\n";
  }
  return found;
}

std::string Joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
  return text;
}

// Exactly the expected collectives were rejected (each prints one skip line)
// or, where allowed, said unsupported; every other one ran checks (a job of
// rejected collectives only runs none).
void CheckRejections(const MatrixJob& job, const std::string& out, uint64_t checks, uint64_t skipped) {
  std::set<std::string> expected, allowed;
  for (Coll c : job.colls) {
    const bool rejected = job.device.on ? ExpectRejectedOnDevice(c, job.variant.algo, job.variant.proto)
                                        : ExpectRejected(c, job.variant.algo, job.variant.proto);
    if (rejected) expected.insert(CollName(c));
  }
  for (Coll c : job.device.may_be_unsupported) allowed.insert(CollName(c));
  std::string skip_lines, unsupported_lines;
  const std::set<std::string> seen =
      Matches(out, std::regex(R"(coll_matrix: (\S+) algo=\S+ proto=\S+: skipped: )"), &skip_lines);
  const std::set<std::string> unsupported =
      Matches(out, std::regex(R"(coll_matrix: (\S+) on device buffers: unsupported: )"), &unsupported_lines);
  std::set<std::string> unexplained;  // expected, but neither rejected nor unsupported
  for (const std::string& name : expected) {
    if (seen.count(name) == 0 && unsupported.count(name) == 0) unexplained.insert(name);
  }
  const bool extra = !std::includes(expected.begin(), expected.end(), seen.begin(), seen.end());
  EXPECT_TRUE(unexplained.empty() && !extra)
      << "the collectives rejected are not the ones the variant must be rejected for (" << Joined(expected) << ")\n"
      << skip_lines << unsupported_lines;
  EXPECT_TRUE(std::includes(allowed.begin(), allowed.end(), unsupported.begin(), unsupported.end()))
      << "unsupported on device buffers, but required\n"
      << unsupported_lines;
  size_t runnable = 0;
  for (Coll c : job.colls) runnable += expected.count(CollName(c)) == 0 && unsupported.count(CollName(c)) == 0;
  if (unsupported.empty() || runnable > 0) {
    EXPECT_EQ(checks > 0, runnable > 0) << checks << " checks";
  }
  EXPECT_EQ(skipped > 0, !seen.empty()) << skipped << " calls skipped";
}

}  // namespace

std::string TestBinDir(const std::string& program) {
  if (std::string dir = NonEmptyEnv("GR_TEST_BIN_DIR"); !dir.empty()) return dir;
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec && std::filesystem::exists(self.parent_path() / program, ec)) return self.parent_path().string();
  return GPURUN_BIN_DIR;
}

std::string TestLauncher(const std::string& bin_dir) {
  std::string launcher = NonEmptyEnv("GR_TEST_LAUNCHER");
  return launcher.empty() ? bin_dir + "/gpurun" : launcher;
}

std::string JoinColls(const std::vector<Coll>& colls) {
  std::string text;
  for (Coll c : colls) text += std::string(text.empty() ? "" : ",") + CollName(c);
  return text;
}

// Every algorithm with every protocol: the ones a collective lacks are
// expected to be refused (ExpectRejected).
std::vector<Variant> AllVariants() {
  std::vector<Variant> v = {{Algo::kAuto, Proto::kAuto}};
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kOneShot, Algo::kTwoShot}) {
    for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple}) v.push_back({a, p});
  }
  return v;
}

std::string VariantName(const Variant& v) {
  if (v.algo == Algo::kAuto && v.proto == Proto::kAuto) return "auto";
  return std::string(AlgoName(v.algo)) + "_" + ProtoName(v.proto);
}

std::string RunMatrixJob(const MatrixJob& job) {
  const mp::RunOptions o = Command(job);
  std::string command;
  for (const std::string& a : o.argv) command += a + " ";
  SCOPED_TRACE("GPURUN_ALGO=" + o.env[0].second + " GPURUN_PROTO=" + o.env[1].second + " " + command);

  const mp::RunResult r = mp::RunProcess(o);
  EXPECT_FALSE(r.hit_limit) << "killed after " << job.limit_s << " s\n" << r.out << r.err;
  EXPECT_EQ(mp::LeftoverProcesses(r.marker), std::vector<int>{}) << "processes of the job were left behind";
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  const std::regex summary(R"(coll_matrix: (\d+) checks, (\d+) failures, (\d+) skipped)");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(r.out, m, summary)) << "no summary line\n" << r.out << r.err;
  if (m.empty()) return r.out + r.err;
  const uint64_t checks = std::stoull(m[1]), failures = std::stoull(m[2]), skipped = std::stoull(m[3]);
  EXPECT_EQ(failures, 0u) << r.out;
  CheckRejections(job, r.out, checks, skipped);
  return r.out + r.err;
}

}  // namespace gpurun::matrix
