// Device probe, collective lists and the GPU matrix fixture (gpu_env.h).
#include "tests/gpu/gpu_env.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#if GPURUN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace gpurun::gpu_test {
namespace {

struct Probe {
  int count = 0;
  std::string no_gpu;  // why not, when count is 0
};

const Probe& GetProbe() {
  static const Probe probe = [] {
    Probe p;
#if GPURUN_HAVE_CUDA
    const cudaError_t e = cudaGetDeviceCount(&p.count);
    if (e != cudaSuccess) {
      p.count = 0;
      p.no_gpu = std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(e) + " (" +
                 cudaGetErrorString(e) + ")";
    } else if (p.count == 0) {
      p.no_gpu = "no CUDA device: cudaGetDeviceCount returned cudaSuccess with 0 devices";
    }
#else
    p.no_gpu = "no CUDA device: gpurun was built without CUDA (GPURUN_HAVE_CUDA off), so no device buffers";
#endif
    return p;
  }();
  return probe;
}

bool Executable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

// GR_TEST_GPU_COLLS as collectives; "" or what is wrong with it.
std::string Filter(std::vector<Coll>* colls, bool* set) {
  const char* text = std::getenv("GR_TEST_GPU_COLLS");
  *set = text != nullptr && *text != '\0' && std::string(text) != "all";
  if (!*set) return "";
  for (const std::string& name : matrix::SplitList(text)) {
    const std::optional<Coll> c = matrix::CollByName(name);
    if (!c) return "GR_TEST_GPU_COLLS: unknown collective '" + name + "'";
    colls->push_back(*c);
  }
  return "";
}

}  // namespace

const std::string& NoGpuReason() { return GetProbe().no_gpu; }
int GpuCount() { return GetProbe().count; }

std::string ComputeSanitizer() {
  const char* given = std::getenv("GR_TEST_COMPUTE_SANITIZER");
  if (given != nullptr && *given != '\0') return Executable(given) ? given : "";
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env == nullptr ? "" : path_env;
  for (size_t start = 0; start < path.size();) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string candidate = path.substr(start, end - start) + "/compute-sanitizer";
    if (end > start && Executable(candidate)) return candidate;
    start = end + 1;
  }
  const std::string fallback = "/usr/local/cuda/bin/compute-sanitizer";
  return Executable(fallback) ? fallback : "";
}

std::vector<Coll> RingColls() { return matrix::GpuRingColls(); }
std::vector<Coll> P2pColls() { return matrix::P2pColls(); }

std::vector<Coll> RequiredColls() {
  std::vector<Coll> required = RingColls();
  for (Coll c : P2pColls()) required.push_back(c);
  return required;
}

std::vector<Coll> OtherColls() {
  const std::vector<Coll> required = RequiredColls();
  std::vector<Coll> others;
  for (Coll c : matrix::AllColls()) {
    if (std::find(required.begin(), required.end(), c) == required.end()) others.push_back(c);
  }
  return others;
}

void GpuMatrixTest::SetUp() {
  if (!NoGpuReason().empty()) GTEST_SKIP() << NoGpuReason();
  if (!GetParam().tool.empty() && ComputeSanitizer().empty()) {
    GTEST_SKIP() << "no compute-sanitizer: not at $GR_TEST_COMPUTE_SANITIZER, in PATH or in /usr/local/cuda/bin";
  }
  std::vector<Coll> wanted;
  bool filtered = false;
  const std::string error = Filter(&wanted, &filtered);
  ASSERT_EQ(error, "");
  for (Coll c : GetParam().colls) {
    if (!filtered || std::find(wanted.begin(), wanted.end(), c) != wanted.end()) colls_.push_back(c);
  }
  if (colls_.empty()) {
    GTEST_SKIP() << "GR_TEST_GPU_COLLS=" << std::getenv("GR_TEST_GPU_COLLS") << " selects none of "
                 << matrix::JoinColls(GetParam().colls);
  }
  RecordProperty("gpus", GpuCount());
}

matrix::MatrixJob GpuMatrixTest::Job() const {
  const GpuCase& g = GetParam();
  matrix::MatrixJob job;
  job.ranks = g.ranks;
  job.nodes = g.nodes;
  job.variant = g.variant;
  job.colls = colls_;
  job.slice = g.slice;
  job.limit_s = g.limit_s;
  job.device.on = true;
  job.device.stream = g.stream;
  job.env = g.env;
  // A required collective stays required even in a case that allows grUnsupported.
  const std::vector<Coll> others = OtherColls();
  for (Coll c : colls_) {
    if (g.may_be_unsupported && std::find(others.begin(), others.end(), c) != others.end()) {
      job.device.may_be_unsupported.push_back(c);
    }
  }
  // Each rank's sanitizer exits 3 when it found an error.
  if (!g.tool.empty()) job.wrapper = {ComputeSanitizer(), "--tool", g.tool, "--error-exitcode", "3"};
  return job;
}

std::string CaseName(const ::testing::TestParamInfo<GpuCase>& info) { return info.param.name; }
void PrintTo(const GpuCase& g, std::ostream* os) { *os << g.name; }

}  // namespace gpurun::gpu_test
