// coll_matrix: the rank program of the collective correctness matrix. Run
// under `gpurun -n N` (with GPURUN_ALGO / GPURUN_PROTO forcing a choice, and
// --algo / --proto saying which), it runs the slice of the matrix its flags
// select (matrix_flags.h) through the public API on host buffers and checks
// every call (case_runner.h). Rank 0 prints a line per collective and the
// job's summary:
//   coll_matrix: N checks, F failures, S skipped
// (checks and skips counted per rank and call). Every rank exits 1 when any
// rank found a failure, 2 on a usage or setup error.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/matrix/case_runner.h"
#include "tests/matrix/job_exchange.h"
#include "tests/matrix/matrix_flags.h"

namespace gpurun::matrix {
namespace {

constexpr int kBarrierRounds = 3;
constexpr int kBarrierLateMs = 20;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
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

int Main(int argc, char** argv) {
  std::string error;
  const std::optional<Flags> flags = ParseFlags(argc, argv, &error);
  if (!flags) {
    std::fprintf(stderr, "coll_matrix: %s\n%s", error.c_str(), kUsage);
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
  Reporter reporter(x.rank, flags->max_printed);
  CaseRunner runner(x, reporter);
  const auto start = std::chrono::steady_clock::now();
  for (Coll coll : flags->colls) {
    const auto coll_start = std::chrono::steady_clock::now();
    const uint64_t checks_before = reporter.checks() + reporter.skipped();
    if (coll == Coll::kBarrier) {
      RunBarrierChecks(x, flags->algo, flags->proto, kBarrierRounds, kBarrierLateMs, reporter);
    } else {
      RunColl(coll, *flags, x, runner);
    }
    if (x.rank == 0) {
      std::printf("coll_matrix: %s: %llu calls on rank 0 in %.2f s\n", CollName(coll),
                  static_cast<unsigned long long>(reporter.checks() + reporter.skipped() - checks_before),
                  Seconds(coll_start));
      std::fflush(stdout);
    }
  }
  const auto all = ExchangeAll(x, {reporter.checks(), reporter.failures(), reporter.skipped()});
  uint64_t totals[3] = {0, 0, 0};
  for (const auto& counts : all) {
    for (int i = 0; i < 3; ++i) totals[i] += counts[i];
  }
  if (x.rank == 0) {
    std::printf("coll_matrix: %llu checks, %llu failures, %llu skipped\n", static_cast<unsigned long long>(totals[0]),
                static_cast<unsigned long long>(totals[1]), static_cast<unsigned long long>(totals[2]));
    std::printf("coll_matrix: %d ranks, algo=%s proto=%s, %.2f s\n", x.nranks, AlgoName(flags->algo),
                ProtoName(flags->proto), Seconds(start));
    std::fflush(stdout);
  }
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
