// Command-line arguments of gpurun-bench, with nccl-tests' letters:
//   -b MIN -e MAX bytes (units: 4K, 1M), -f FACTOR or -i STEPBYTES for the
//   sweep, -n iterations, -w warm-up iterations,
// and for the collectives
//   -c CHECKS (0: off), -d TYPE|all, -o OP|all, -r ROOT|all, -m AGG (each
//   timed iteration issues AGG calls in one group, as nccl-tests'
//   --agg_iters: successive calls on successive pieces of the buffers, the
//   time per call), --json FILE,
//   --device host|cuda (where the buffers are), --blocking (cuda: pass
//   GR_STREAM_HOST instead of the benchmark's stream), --compare nccl (cuda:
//   the same sweep through NCCL too), --nccl-lib PATH (default libnccl.so.2).
// The command "all" runs every collective in turn.
// The point-to-point commands (latency, bw) also take -W WINDOW and
// -D USEC (a sleep before each wait, for instruction counts under callgrind,
// bench/p2p_callgrind.sh; not for timing).
#ifndef GPURUN_BENCH_BENCH_ARGS_H_
#define GPURUN_BENCH_BENCH_ARGS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "bench/coll_layout.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

// Where a collective's buffers live.
enum class BenchDevice { kHost, kCuda };

struct BenchArgs {
  std::string command;          // "latency", "bw", a collective's name or "all"
  std::vector<CollKind> colls;  // the collectives to run; empty for latency and bw
  size_t min_bytes = 0;
  size_t max_bytes = 4u << 20;
  size_t factor = 2;
  size_t step_bytes = 0;  // -i: additive step; 0 = multiply by factor
  int iters = 0;          // 0: a size-dependent default (DefaultIters)
  int warmup = 0;         // 0: a size-dependent default (DefaultWarmup)
  // Point-to-point only.
  int window = 64;   // bw: messages in flight per iteration
  int delay_us = 0;  // sleep before each wait for the peer, so the message is there when the wait starts
  // Collectives only.
  int checks = 1;  // check iterations after the timed ones (0: no check, #wrong is N/A)
  int agg = 1;     // -m: calls per timed iteration, in one group (grGroupStart / ncclGroupStart) when above 1
  std::vector<grDataType_t> types = {grFloat32};
  std::vector<grRedOp_t> ops = {grSum};
  int root = 0;
  bool all_roots = false;
  std::string json_path;  // empty: no JSON
  BenchDevice device = BenchDevice::kHost;
  bool blocking = false;                  // cuda: calls get GR_STREAM_HOST, not the stream
  bool graph = false;                     // cuda: the timed calls are captured in a CUDA graph and replayed
  bool compare_nccl = false;              // cuda: every row through NCCL as well
  std::string nccl_lib = "libnccl.so.2";  // what --compare nccl dlopens
};

// Parses argv (argv[1] is the command). The collectives default to
// -b 8 -e 16M; latency and bw to -b 0 -e 4M. --blocking, --graph and
// --compare need --device cuda, --nccl-lib needs --compare nccl; --graph
// and --blocking exclude each other.
gpurun::StatusOr<BenchArgs> ParseBenchArgs(int argc, char** argv);

// The usage text, for stderr.
void PrintBenchUsage();

// The sweep: min, then min * factor (0 is followed by 1) or min + step, up to max.
std::vector<size_t> SweepSizes(const BenchArgs& args);

// Sizes min, min*factor, ... up to max (0 is followed by 1).
size_t NextSize(size_t bytes, size_t factor);

// Collective iterations per size: -n, or enough for about 32 MiB of data
// (1000 for small sizes, at least 20 as nccl-tests). Warm-up: -w, or a tenth
// of that (2..100).
int DefaultIters(const BenchArgs& args, size_t bytes);
int DefaultWarmup(const BenchArgs& args, size_t bytes);

// Names as nccl-tests prints them ("float", "bfloat16", "sum") and their inverses.
const char* TypeName(grDataType_t type);
const char* OpName(grRedOp_t op);
std::optional<grDataType_t> ParseTypeName(std::string_view name);
std::optional<grRedOp_t> ParseOpName(std::string_view name);

#endif  // GPURUN_BENCH_BENCH_ARGS_H_
