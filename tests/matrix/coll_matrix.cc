// coll_matrix: the rank program of the collective correctness matrix. Run
// under `gpurun -n N` (with GPURUN_ALGO / GPURUN_PROTO forcing a choice, and
// --algo / --proto saying which), it runs the slice of the matrix its flags
// select (matrix_flags.h) through the public API on host buffers, or with
// --device=cuda on device buffers (device_buffer.h), and checks every call
// (case_runner.h). Rank 0 prints a line per collective and the job's summary:
//   coll_matrix: N checks, F failures, S skipped
// (checks and skips counted per rank and call; device mode adds
// ", U unsupported"). Every rank exits 1 when any rank found a failure, 2 on
// a usage or setup error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/matrix/case_runner.h"
#include "tests/matrix/device_buffer.h"
#include "tests/matrix/job_exchange.h"
#include "tests/matrix/matrix_flags.h"

namespace gpurun::matrix {
namespace {

constexpr int kBarrierRounds = 3;
constexpr int kBarrierLateMs = 20;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Device mode: the buffers' device and stream, chosen before grInit so the
// library finds that device current. Host mode: null, and *error stays empty.
std::unique_ptr<DeviceBuffers> OpenDevice(const Flags& f, std::string* error) {
  if (!f.on_device) return nullptr;
#if GPURUN_HAVE_CUDA
  return MakeCudaBuffers(f.stream, error);
#else
  *error = "--device=cuda: this coll_matrix was built without CUDA (GPURUN_HAVE_CUDA off): no device buffers";
  return nullptr;
#endif
}

// Device mode: the context's buffers, stream and the collectives of the
// slice outside --device-collectives (they may answer grUnsupported).
void UseDevice(const Flags& f, DeviceBuffers* device, PlanContext& x) {
  if (device == nullptr) return;
  x.device = device;
  x.stream = device->stream();
  x.graph = f.graph;
  for (Coll coll : f.colls) {
    if (std::find(f.device_colls.begin(), f.device_colls.end(), coll) == f.device_colls.end()) {
      x.may_be_unsupported.push_back(coll);
    }
  }
  std::printf("coll_matrix rank %d: buffers on %s\n", x.rank, device->Describe().c_str());
  std::fflush(stdout);
}

std::vector<int> Roots(const Flags& f, int nranks) {
  std::vector<int> roots;
  if (f.all_roots) {
    for (int r = 0; r < nranks; ++r) roots.push_back(r);
  } else {
    roots.push_back(0);
    if (nranks > 1) roots.push_back(nranks - 1);
  }
  return roots;
}

// Every case of `coll` in the slice, in the same order on every rank.
void RunColl(Coll coll, const Flags& f, const PlanContext& x, CaseRunner& runner) {
  const std::vector<grRedOp_t> ops = IsReducing(coll) ? f.ops : std::vector<grRedOp_t>{grSum};
  const std::vector<int> roots = IsRooted(coll) ? Roots(f, x.nranks) : std::vector<int>{0};
  Case c;
  c.coll = coll;
  c.algo = f.algo;
  c.proto = f.proto;
  for (grDataType_t type : f.types) {
    c.type = type;
    for (grRedOp_t op : ops) {
      c.op = op;
      for (size_t bytes : f.sizes) {
        if (bytes > f.max_bytes) continue;
        c.bytes = bytes;
        c.count = bytes / TypeBytes(type);
        for (size_t offset : f.offsets) {
          c.offset = offset;
          for (bool in_place : f.in_place) {
            if (coll == Coll::kBcast && !in_place) continue;  // one buffer: always in place
            c.in_place = in_place;
            for (int root : roots) {
              c.root = root;
              runner.Run(c);
            }
          }
        }
      }
    }
  }
}

// The job's totals (checks, failures, skipped, unsupported), printed by rank 0.
std::vector<uint64_t> Summarize(const PlanContext& x, const Flags& f, const Reporter& reporter, double seconds) {
  const auto all = ExchangeAll(x, {reporter.checks(), reporter.failures(), reporter.skipped(), reporter.unsupported()});
  std::vector<uint64_t> totals(4, 0);
  for (const auto& counts : all) {
    for (size_t i = 0; i < totals.size(); ++i) totals[i] += counts[i];
  }
  if (x.rank == 0) {
    const auto n = [&](int i) { return static_cast<unsigned long long>(totals[i]); };
    std::printf("coll_matrix: %llu checks, %llu failures, %llu skipped", n(0), n(1), n(2));
    if (f.on_device) std::printf(", %llu unsupported", n(3));
    std::printf("\ncoll_matrix: %d ranks, algo=%s proto=%s, %.2f s\n", x.nranks, AlgoName(f.algo), ProtoName(f.proto),
                seconds);
    std::fflush(stdout);
  }
  return totals;
}

void RunSlice(const Flags& f, const PlanContext& x, Reporter& reporter) {
  CaseRunner runner(x, reporter);
  for (Coll coll : f.colls) {
    const auto coll_start = std::chrono::steady_clock::now();
    const uint64_t calls_before = reporter.calls();
    if (coll == Coll::kBarrier) {
      RunBarrierChecks(x, f.algo, f.proto, kBarrierRounds, kBarrierLateMs, reporter);
    } else {
      RunColl(coll, f, x, runner);
    }
    if (x.rank == 0) {
      std::printf("coll_matrix: %s: %llu calls on rank 0 in %.2f s\n", CollName(coll),
                  static_cast<unsigned long long>(reporter.calls() - calls_before), Seconds(coll_start));
      std::fflush(stdout);
    }
  }
}

int Main(int argc, char** argv) {
  std::string error;
  const std::optional<Flags> flags = ParseFlags(argc, argv, &error);
  if (!flags) {
    std::fprintf(stderr, "coll_matrix: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  const std::unique_ptr<DeviceBuffers> device = OpenDevice(*flags, &error);
  if (!error.empty()) {
    std::fprintf(stderr, "coll_matrix: %s\n", error.c_str());
    return 2;
  }
  grResult_t r = grInit(&argc, &argv);
  if (r != grSuccess) {
    std::fprintf(stderr, "coll_matrix: grInit: %s: %s\n", grGetErrorString(r), grGetLastErrorMessage());
    return 2;
  }
  PlanContext x;
  x.comm = grCommWorld();
  grCommRank(x.comm, &x.rank);
  grCommSize(x.comm, &x.nranks);
  if (x.nranks > kMaxRanks) {
    // The inputs are exact only up to kMaxRanks (pattern.h).
    std::fprintf(stderr, "coll_matrix: %d ranks: at most %d are supported\n", x.nranks, kMaxRanks);
    grAbort(x.comm, 2);
  }
  PatternCache patterns(x.nranks);
  x.patterns = &patterns;
  UseDevice(*flags, device.get(), x);
  Reporter reporter(x.rank, flags->max_printed);
  const auto start = std::chrono::steady_clock::now();
  RunSlice(*flags, x, reporter);
  const std::vector<uint64_t> totals = Summarize(x, *flags, reporter, Seconds(start));
  r = grFinalize();
  if (r != grSuccess) {
    std::fprintf(stderr, "coll_matrix rank %d: grFinalize: %s: %s\n", x.rank, grGetErrorString(r),
                 grGetLastErrorMessage());
    return 2;
  }
  return totals[1] == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gpurun::matrix

int main(int argc, char** argv) { return gpurun::matrix::Main(argc, argv); }
