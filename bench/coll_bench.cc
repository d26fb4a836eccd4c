// The collective sweep (see coll_bench.h).
#include "bench/coll_bench.h"

#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_ctrl.h"
#include "bench/coll_buffers.h"
#include "bench/coll_call.h"
#include "bench/coll_report.h"
#include "bench/elem_codec.h"
#include "runtime/base/env.h"
#include "runtime/base/param_table.h"

namespace {

double NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

// Ends the job on a failed call: the other ranks would otherwise wait in
// their next call until GPURUN_TIMEOUT.
[[noreturn]] void Die(int rank, const std::string& what, grResult_t rc) {
  std::fprintf(stderr, "gpurun-bench: rank %d: %s: %s: %s\n", rank, what.c_str(), grGetErrorString(rc),
               grGetLastErrorMessage());
  std::fflush(stderr);
  grAbort(grCommWorld(), 1);
  std::abort();
}

std::string Describe(const CollCase& c) {
  std::string s = std::string(CollApiName(c)) + " (" + std::to_string(c.layout.bytes) + " B, count " +
                  std::to_string(c.layout.count) + ", " + TypeName(c.pattern.type);
  if (IsReduction(c.pattern.kind)) s += std::string(", ") + OpName(c.pattern.op);
  if (HasRoot(c.pattern.kind)) s += ", root " + std::to_string(c.pattern.root);
  return s + (c.in_place ? ", in place)" : ", out of place)");
}

class Sweep {
 public:
  Sweep(const BenchArgs& args, int rank, int nranks, BenchCtrl* ctrl)
      : args_(args), rank_(rank), nranks_(nranks), ctrl_(ctrl), buffers_(args.max_bytes) {}

  // One row: both variants on every rank; at rank 0 the combined result.
  void RunRow(DataPattern pattern, size_t bytes) {
    RankResult mine;
    CollLayout layout = MakeLayout(pattern.kind, bytes, ElemSize(pattern.type), nranks_, rank_, pattern.root);
    const int variants = MovesData(pattern.kind) ? 2 : 1;
    for (int v = 0; v < variants; ++v) {
      CollCase c{pattern, layout, rank_, v == 1};
      mine.time_us[v] = TimeLoop(c);
      mine.wrong[v] = Check(c);
    }
    RankResult all;
    Ctrl(ctrl_->Combine(mine, &all), "combining the results at rank 0");
    if (rank_ != 0) return;
    Row row;
    row.bytes = layout.bytes;
    row.count = layout.count;
    row.type = MovesData(pattern.kind) ? TypeName(pattern.type) : "none";
    row.op = IsReduction(pattern.kind) ? OpName(pattern.op) : "none";
    row.root = HasRoot(pattern.kind) ? pattern.root : -1;
    for (int v = 0; v < variants; ++v) {
      const bool checked = args_.checks > 0 && MovesData(pattern.kind);
      row.variant[v] = MakeMeasure(layout.bytes, all.time_us[v], layout.bus_factor, checked ? all.wrong[v] : -1);
    }
    PrintRow(stdout, row);
    rows_.push_back(row);
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  void Ctrl(grResult_t rc, const char* what) {
    if (rc != grSuccess) Die(rank_, what, rc);
  }

  void Call(const CollCase& c) {
    const grResult_t rc = CallColl(c, buffers_, grCommWorld());
    if (rc != grSuccess) Die(rank_, Describe(c), rc);
  }

  // Per-iteration average of this rank, after warm-up and a barrier.
  double TimeLoop(const CollCase& c) {
    const int iters = DefaultIters(args_, c.layout.bytes);
    const int warmup = DefaultWarmup(args_, c.layout.bytes);
    Ctrl(ctrl_->Barrier(), "barrier before the warm-up");
    for (int i = 0; i < warmup; ++i) Call(c);
    Ctrl(ctrl_->Barrier(), "barrier before the timed loop");
    const double start = NowUs();
    for (int i = 0; i < iters; ++i) Call(c);
    return (NowUs() - start) / iters;
  }

  // Wrong elements over the check iterations (each with its own inputs); a barrier has no data to check.
  int64_t Check(CollCase c) {
    int64_t wrong = 0;
    for (int it = 0; it < args_.checks && MovesData(c.pattern.kind); ++it) {
      c.pattern.iter = it;
      PrepareCheck(c, buffers_);
      Call(c);
      wrong += static_cast<int64_t>(CountWrong(c, buffers_));
    }
    return wrong;
  }

  const BenchArgs& args_;
  const int rank_;
  const int nranks_;
  BenchCtrl* ctrl_;
  CollBuffers buffers_;
  std::vector<Row> rows_;
};

std::string SweepText(const BenchArgs& args) {
  if (!MovesData(*args.coll)) return "none (barrier)";
  std::string s = std::to_string(args.min_bytes) + " .. " + std::to_string(args.max_bytes) + " B, ";
  return s + (args.step_bytes > 0 ? "+" + std::to_string(args.step_bytes) : "x" + std::to_string(args.factor));
}

std::string ItersText(const BenchArgs& args) {
  if (args.iters > 0)
    return "iters " + std::to_string(args.iters) + ", warmup " + std::to_string(DefaultWarmup(args, 0));
  return "iters size-dependent (" + std::to_string(DefaultIters(args, args.min_bytes)) + " .. " +
         std::to_string(DefaultIters(args, args.max_bytes)) + "), warmup a tenth (2 .. 100)";
}

LaunchInfo MakeLaunchInfo(const BenchArgs& args, int nranks) {
  LaunchInfo info;
  info.collective = CollName(*args.coll);
  info.nranks = nranks;
  for (int r = 0; r < nranks; ++r) {
    grPeerInfo_t peer{};
    if (grCommPeerInfo(grCommWorld(), r, &peer) == grSuccess) info.peers.push_back(peer);
  }
  // grInit validated the environment already; this reads the same values into
  // this program's copy of the parameter registry.
  if (gpurun::ParamRegistry::Global().Load(gpurun::ProcessEnv()).ok()) {
    info.algo = gpurun::params::kAlgo.Get();
    info.proto = gpurun::params::kProto.Get();
  }
  info.sweep = SweepText(args);
  info.iters = ItersText(args);
  info.checks = args.checks;
  return info;
}

}  // namespace

int RunCollBench(const BenchArgs& args, int rank, int nranks) {
  const CollKind kind = *args.coll;
  if (HasRoot(kind) && !args.all_roots && args.root >= nranks) {
    if (rank == 0) std::fprintf(stderr, "gpurun-bench: -r %d: there are only %d ranks\n", args.root, nranks);
    return 2;
  }
  BenchCtrl ctrl;
  if (const grResult_t rc = ctrl.Init(grCommWorld()); rc != grSuccess) Die(rank, "grCommDup for the benchmark", rc);
  const LaunchInfo info = MakeLaunchInfo(args, nranks);
  if (rank == 0) PrintHeader(stdout, info);

  Sweep sweep(args, rank, nranks, &ctrl);
  const std::vector<size_t> sizes = MovesData(kind) ? SweepSizes(args) : std::vector<size_t>{0};
  const std::vector<grDataType_t> types = MovesData(kind) ? args.types : std::vector<grDataType_t>{grUint8};
  const std::vector<grRedOp_t> ops = IsReduction(kind) ? args.ops : std::vector<grRedOp_t>{grSum};
  std::vector<int> roots = {HasRoot(kind) ? args.root : 0};
  if (HasRoot(kind) && args.all_roots) {
    roots.clear();
    for (int r = 0; r < nranks; ++r) roots.push_back(r);
  }
  for (const grDataType_t type : types) {
    for (const grRedOp_t op : ops) {
      for (const int root : roots) {
        for (const size_t bytes : sizes) sweep.RunRow(DataPattern{kind, type, op, root, nranks, 0}, bytes);
      }
    }
  }
  int64_t wrong = 0;
  if (rank == 0) {
    wrong = PrintFooter(stdout, sweep.rows());
    if (!args.json_path.empty() && !WriteJson(args.json_path, info, sweep.rows())) {
      std::fprintf(stderr, "gpurun-bench: cannot write %s\n", args.json_path.c_str());
      wrong = wrong > 0 ? wrong : -1;
    }
  }
  if (const grResult_t rc = ctrl.Free(); rc != grSuccess) Die(rank, "grCommFree of the benchmark's communicator", rc);
  return wrong == 0 ? 0 : 1;
}
