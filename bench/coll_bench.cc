// The collective sweep (see coll_bench.h).
#include "bench/coll_bench.h"

#include <time.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/bench_ctrl.h"
#include "bench/coll_buffers.h"
#include "bench/coll_call.h"
#include "bench/coll_report.h"
#include "bench/compare_report.h"
#include "bench/device_setup.h"
#include "bench/elem_codec.h"
#include "runtime/base/env.h"
#include "runtime/base/param_table.h"

namespace {

constexpr double kNotMeasured = -1;  // RankResult::time_us of a variant that did not run

double NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

std::string GrError(grResult_t rc) { return std::string(grGetErrorString(rc)) + ": " + grGetLastErrorMessage(); }

// Ends the job on a failed call: the other ranks would otherwise wait in
// their next call until GPURUN_TIMEOUT.
[[noreturn]] void Die(int rank, const std::string& what, const std::string& error) {
  std::fprintf(stderr, "gpurun-bench: rank %d: %s: %s\n", rank, what.c_str(), error.c_str());
  std::fflush(stderr);
  grAbort(grCommWorld(), 1);
  std::abort();
}

std::string Describe(const CollLibrary& lib, const CollCase& c) {
  std::string s = std::string(lib.ApiName(c)) + " (" + std::to_string(c.layout.bytes) + " B, count " +
                  std::to_string(c.layout.count) + ", " + TypeName(c.pattern.type);
  if (IsReduction(c.pattern.kind)) s += std::string(", ") + OpName(c.pattern.op);
  if (HasRoot(c.pattern.kind)) s += ", root " + std::to_string(c.pattern.root);
  return s + (c.in_place ? ", in place)" : ", out of place)");
}

// What the sweeps run on: the target's buffers and stream, and the libraries
// each variant goes through (gpurun first, then NCCL with --compare nccl).
struct Session {
  BenchTarget* target = nullptr;
  std::vector<CollLibrary*> libs;
};

Measure ToMeasure(const CollLayout& layout, const RankResult& all, int v, bool checked) {
  if (all.time_us[v] < 0) return Measure{};
  return MakeMeasure(layout.bytes, all.time_us[v], layout.bus_factor, checked ? all.wrong[v] : -1);
}

class Sweep {
 public:
  Sweep(const BenchArgs& args, int rank, int nranks, BenchCtrl* ctrl, const Session& session, bool compare)
      : args_(args), rank_(rank), nranks_(nranks), ctrl_(ctrl), session_(session), compare_(compare) {}

  // One row: both variants through every library on every rank; at rank 0
  // the combined result is printed. False when a library declined the row on
  // every rank (reported; the caller skips the rest of this sweep).
  bool RunRow(DataPattern pattern, size_t bytes) {
    const CollLayout layout = MakeLayout(pattern.kind, bytes, ElemSize(pattern.type), nranks_, rank_, pattern.root);
    const int variants = HasInPlace(pattern.kind) ? 2 : 1;  // barrier, sendrecv: in place N/A
    std::vector<RankResult> mine(session_.libs.size());
    for (RankResult& m : mine) m.time_us[0] = m.time_us[1] = kNotMeasured;
    for (int v = 0; v < variants; ++v) {
      const CollCase c{pattern, layout, rank_, v == 1};
      for (size_t l = 0; l < session_.libs.size(); ++l) {
        if (!MeasureVariant(*session_.libs[l], c, v, &mine[l])) return false;
      }
    }
    std::vector<RankResult> all(mine.size());
    for (size_t l = 0; l < mine.size(); ++l) Ctrl(ctrl_->Combine(mine[l], &all[l]), "combining the results at rank 0");
    if (rank_ == 0) Report(pattern, layout, all);
    return true;
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  void Ctrl(grResult_t rc, const char* what) {
    if (rc != grSuccess) Die(rank_, what, GrError(rc));
  }

  void Must(const gpurun::Status& s, const char* what) {
    if (!s.ok()) Die(rank_, what, s.ToString());
  }

  void MustCall(CollLibrary& lib, const CollCase& c) {
    if (lib.Call(c) != CallCode::kOk) Die(rank_, Describe(lib, c), lib.ErrorText());
  }

  // Where each call of an iteration starts in the buffers (-m AGG, nccl-tests'
  // agg_iters): call a on piece a mod pieces, pieces of the row's extent
  // rounded up to 256 bytes, as many as the buffers of -e bytes hold (at the
  // largest sizes the calls share one). Made once per row.
  std::vector<size_t> AggShifts(const CollCase& c) const {
    const size_t piece = (c.layout.bytes + 255) / 256 * 256;
    const size_t pieces =
        piece == 0 || c.layout.bytes > args_.max_bytes ? 1 : (args_.max_bytes - c.layout.bytes) / piece + 1;
    std::vector<size_t> shifts(static_cast<size_t>(args_.agg));
    for (size_t a = 0; a < shifts.size(); ++a) shifts[a] = (a % pieces) * piece;
    return shifts;
  }

  // One timed iteration: the call, or with -m AGG the AGG calls at `shifts`
  // in one group.
  void MustIteration(CollLibrary& lib, const CollCase& c, const std::vector<size_t>& shifts) {
    if (args_.agg == 1) return MustCall(lib, c);
    if (lib.GroupStart() != CallCode::kOk) Die(rank_, std::string(lib.name()) + " group start", lib.ErrorText());
    CollCase call = c;
    for (size_t shift : shifts) {
      call.shift = shift;
      MustCall(lib, call);
    }
    if (lib.GroupEnd() != CallCode::kOk) Die(rank_, std::string(lib.name()) + " group end", lib.ErrorText());
  }

  // Times and checks variant v of `c` through `lib` into *mine; false when
  // every rank's library declined it.
  bool MeasureVariant(CollLibrary& lib, const CollCase& c, int v, RankResult* mine) {
    if (!lib.Has(c)) return true;  // stays kNotMeasured: N/A
    const std::optional<double> time = TimeLoop(lib, c);
    if (!time) return false;
    mine->time_us[v] = *time;
    mine->wrong[v] = Check(lib, c);
    return true;
  }

  // Per-call average of this rank: warm-up (its first call agreed on by
  // every rank before anything waits for it), the target's sync, a barrier,
  // then the timed iterations (-m calls each) up to the target's sync.
  // nullopt when every rank's first call was declined.
  std::optional<double> TimeLoop(CollLibrary& lib, const CollCase& c) {
    const int iters = DefaultIters(args_, c.layout.bytes);
    const int warmup = DefaultWarmup(args_, c.layout.bytes);
    Ctrl(ctrl_->Barrier(), "barrier before the warm-up");
    const CallCode first = lib.Call(c);
    if (first == CallCode::kFailed) Die(rank_, Describe(lib, c), lib.ErrorText());
    if (!AllAccepted(lib, c, first)) return std::nullopt;
    const std::vector<size_t> shifts = AggShifts(c);
    for (int i = 1; i < warmup; ++i) MustIteration(lib, c, shifts);
    Must(session_.target->Sync(), "waiting for the warm-up");
    if (args_.graph) return TimeGraph(lib, c, iters, shifts);
    Ctrl(ctrl_->Barrier(), "barrier before the timed loop");
    const double start = NowUs();
    for (int i = 0; i < iters; ++i) MustIteration(lib, c, shifts);
    Must(session_.target->Sync(), "waiting for the timed calls");
    return (NowUs() - start) / (iters * args_.agg);
  }

  // --graph: the timed calls captured in one graph (each library's set-up
  // happened in the eager warm-up), replayed once untimed, then once timed,
  // then destroyed (run 9 of 2026-11-30 kept the last graph to the end and
  // the job hung at exit).
  double TimeGraph(CollLibrary& lib, const CollCase& c, int iters, const std::vector<size_t>& shifts) {
    BenchTarget& target = *session_.target;
    Must(target.BeginCapture(), "starting the graph capture");
    for (int i = 0; i < iters; ++i) MustIteration(lib, c, shifts);
    Must(target.EndCapture(), "ending the graph capture");
    Must(target.Replay(), "replaying the graph (untimed)");
    Must(target.Sync(), "waiting for the untimed replay");
    Ctrl(ctrl_->Barrier(), "barrier before the timed replay");
    const double start = NowUs();
    Must(target.Replay(), "replaying the graph");
    Must(target.Sync(), "waiting for the timed replay");
    const double us = (NowUs() - start) / (iters * args_.agg);
    target.DropGraph();
    return us;
  }

  // Whether every rank's first call was accepted. All declined: rank 0
  // reports it, false. Some declined: the ranks disagree, the job ends.
  bool AllAccepted(CollLibrary& lib, const CollCase& c, CallCode first) {
    const int declined = first == CallCode::kUnsupported ? 1 : 0;
    int min = 0, max = 0;
    Ctrl(ctrl_->MinMax(declined, &min, &max), "agreeing on the first call");
    if (max == 0) return true;
    if (min == 0) {
      Die(rank_, Describe(lib, c),
          declined ? lib.ErrorText() + " (other ranks accepted the call)" : "accepted here, declined by another rank");
    }
    if (rank_ == 0) {
      const std::string text = "skipped: " + Describe(lib, c) + ": " + lib.ErrorText();
      std::printf("# %s (%s declined it; the rest of this sweep is skipped)\n", text.c_str(), lib.name());
      std::fflush(stdout);
      std::fprintf(stderr, "gpurun-bench: %s\n", text.c_str());
    }
    return false;
  }

  // Wrong elements over the check iterations (each with its own inputs,
  // prepared in host memory and copied to the target's buffers and back); a
  // barrier has no data to check.
  int64_t Check(CollLibrary& lib, CollCase c) {
    int64_t wrong = 0;
    BenchTarget& target = *session_.target;
    for (int it = 0; it < args_.checks && MovesData(c.pattern.kind); ++it) {
      c.pattern.iter = it;
      PrepareCheck(c, target.mirror());
      Must(target.Upload(c.layout.bytes), "copying the check's inputs to the buffers");
      MustCall(lib, c);
      Must(target.Sync(), "waiting for the check's call");
      Must(target.Download(c.layout.bytes), "copying the check's output back");
      wrong += static_cast<int64_t>(CountWrong(c, target.mirror()));
    }
    return wrong;
  }

  void Report(const DataPattern& pattern, const CollLayout& layout, const std::vector<RankResult>& all) {
    Row row;
    row.bytes = layout.bytes;
    row.count = layout.count;
    row.type = MovesData(pattern.kind) ? TypeName(pattern.type) : "none";
    row.op = IsReduction(pattern.kind) ? OpName(pattern.op) : "none";
    row.root = HasRoot(pattern.kind) ? pattern.root : -1;
    const bool checked = args_.checks > 0 && MovesData(pattern.kind);
    for (int v = 0; v < 2; ++v) {
      row.variant[v] = ToMeasure(layout, all[0], v, checked);
      if (all.size() > 1) row.nccl[v] = ToMeasure(layout, all[1], v, checked);
    }
    if (compare_) {
      PrintCompareRow(stdout, row);
    } else {
      PrintRow(stdout, row);
    }
    rows_.push_back(row);
  }

  const BenchArgs& args_;
  const int rank_;
  const int nranks_;
  BenchCtrl* ctrl_;
  const Session& session_;
  const bool compare_;
  std::vector<Row> rows_;
};

std::string SweepText(const BenchArgs& args, CollKind kind) {
  if (!MovesData(kind)) return "none (barrier)";
  std::string s = std::to_string(args.min_bytes) + " .. " + std::to_string(args.max_bytes) + " B, ";
  return s + (args.step_bytes > 0 ? "+" + std::to_string(args.step_bytes) : "x" + std::to_string(args.factor));
}

std::string ItersText(const BenchArgs& args) {
  const std::string agg =
      args.agg > 1 ? ", " + std::to_string(args.agg) + " calls an iteration in one group (-m), time per call" : "";
  if (args.iters > 0)
    return "iters " + std::to_string(args.iters) + ", warmup " + std::to_string(DefaultWarmup(args, 0)) + agg;
  return "iters size-dependent (" + std::to_string(DefaultIters(args, args.min_bytes)) + " .. " +
         std::to_string(DefaultIters(args, args.max_bytes)) + "), warmup a tenth (2 .. 100)" + agg;
}

// The header's account of --device cuda and --compare nccl.
void DescribeDevice(const BenchArgs& args, const DeviceSetup& setup, LaunchInfo* info) {
  info->path = "cuda";
  info->path_text = args.blocking ? "device path (cudaMalloc buffers, GR_STREAM_HOST: each call completes on return)"
                                  : "device path (cudaMalloc buffers, calls on one CUDA stream per rank, timed to "
                                    "cudaStreamSynchronize)";
  const int local_ranks = info->peers.empty() ? 1 : info->peers[0].local_size;
  info->launch = LaunchLine(local_ranks, setup.device_count, args.blocking, args.graph);
  info->notes.push_back("GPU: rank 0 on CUDA device " + std::to_string(setup.device) + " of " +
                        std::to_string(setup.device_count) + " (" + setup.device_name +
                        "); each rank takes GPURUN_LOCAL_RANK mod the visible devices");
  if (!args.compare_nccl) return;
  info->compare = true;
  info->nccl_version = setup.nccl_version;
  info->notes.push_back("NCCL " + setup.nccl_version + " (" + args.nccl_lib +
                        "), NCCL_NVLS_ENABLE=0; ratio = busbw(gpurun) / busbw(nccl), above 1: gpurun is faster");
}

LaunchInfo MakeLaunchInfo(const BenchArgs& args, CollKind kind, const DeviceSetup& setup, int nranks) {
  LaunchInfo info;
  info.collective = CollName(kind);
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
  info.sweep = SweepText(args, kind);
  info.iters = ItersText(args);
  info.checks = args.checks;
  if (args.device == BenchDevice::kCuda) DescribeDevice(args, setup, &info);
  return info;
}

// Every (type, op, root, size) row of one collective; the sizes left of a
// (type, op, root) are skipped once a library declines one. True when none was declined.
bool RunRows(const BenchArgs& args, CollKind kind, int nranks, Sweep* sweep) {
  const std::vector<size_t> sizes = MovesData(kind) ? SweepSizes(args) : std::vector<size_t>{0};
  const std::vector<grDataType_t> types = MovesData(kind) ? args.types : std::vector<grDataType_t>{grUint8};
  const std::vector<grRedOp_t> ops = IsReduction(kind) ? args.ops : std::vector<grRedOp_t>{grSum};
  std::vector<int> roots = {HasRoot(kind) ? args.root : 0};
  if (HasRoot(kind) && args.all_roots) {
    roots.clear();
    for (int r = 0; r < nranks; ++r) roots.push_back(r);
  }
  bool all_ran = true;
  for (const grDataType_t type : types) {
    for (const grRedOp_t op : ops) {
      for (const int root : roots) {
        for (const size_t bytes : sizes) {
          if (sweep->RunRow(DataPattern{kind, type, op, root, nranks, 0}, bytes)) continue;
          all_ran = false;
          break;
        }
      }
    }
  }
  return all_ran;
}

// One collective's header, rows, footer and JSON. Returns 0, 1 (wrong
// elements) or 3 (a sweep declined).
int RunOne(const BenchArgs& args, CollKind kind, const DeviceSetup& setup, const Session& session, int rank,
           int nranks) {
  BenchCtrl ctrl;
  if (const grResult_t rc = ctrl.Init(grCommWorld()); rc != grSuccess) {
    Die(rank, "grCommDup for the benchmark", GrError(rc));
  }
  const LaunchInfo info = MakeLaunchInfo(args, kind, setup, nranks);
  if (rank == 0) PrintHeader(stdout, info);
  Sweep sweep(args, rank, nranks, &ctrl, session, info.compare);
  const bool all_ran = RunRows(args, kind, nranks, &sweep);
  int64_t wrong = 0;
  if (rank == 0) {
    wrong = PrintFooter(stdout, sweep.rows());
    if (info.compare) wrong += PrintCompareFooter(stdout, sweep.rows());
    const std::string json = args.colls.size() > 1 ? JsonPathFor(args.json_path, info.collective) : args.json_path;
    if (!args.json_path.empty() && !WriteJson(json, info, sweep.rows())) {
      std::fprintf(stderr, "gpurun-bench: cannot write %s\n", json.c_str());
      wrong = wrong > 0 ? wrong : -1;
    }
  }
  if (const grResult_t rc = ctrl.Free(); rc != grSuccess) {
    Die(rank, "grCommFree of the benchmark's communicator", GrError(rc));
  }
  if (wrong != 0) return 1;
  return all_ran ? 0 : 3;
}

}  // namespace

int RunCollBench(const BenchArgs& args, const DeviceSetup& setup, int rank, int nranks) {
  for (const CollKind kind : args.colls) {
    if (HasRoot(kind) && !args.all_roots && args.root >= nranks) {
      if (rank == 0) std::fprintf(stderr, "gpurun-bench: -r %d: there are only %d ranks\n", args.root, nranks);
      return 2;
    }
  }
  auto target = MakeTarget(args);
  if (!target.ok()) Die(rank, "setting up the buffers", target.status().ToString());
  GpurunLibrary gpurun((*target)->buffers(), args.blocking ? GR_STREAM_HOST : (*target)->stream());
  Session session{target->get(), {&gpurun}};
  std::unique_ptr<CollLibrary> nccl;
  if (args.compare_nccl) {
    auto made = MakeCompareLibrary(args, setup, **target, rank, nranks);
    if (!made.ok()) Die(rank, "setting up NCCL", made.status().ToString());
    nccl = std::move(*made);
    session.libs.push_back(nccl.get());
  }
  int rc = 0;
  for (const CollKind kind : args.colls) {
    const int one = RunOne(args, kind, setup, session, rank, nranks);
    if (one == 1 || rc == 0) rc = one;  // wrong elements outrank a skipped sweep
  }
  return rc;
}
