// gpurun-bench argument parsing (see bench_args.h).
#include "bench/bench_args.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <limits>
#include <string_view>

#include "runtime/base/parse.h"

namespace {

using gpurun::InvalidArgument;
using gpurun::StatusOr;

struct TypeEntry {
  std::string_view name;
  grDataType_t type;
};
// The first name of each type is the one printed (nccl-tests' names).
constexpr TypeEntry kTypes[] = {
    {"int8", grInt8},      {"uint8", grUint8},       {"int32", grInt32},  {"uint32", grUint32},
    {"int64", grInt64},    {"uint64", grUint64},     {"half", grFloat16}, {"float", grFloat32},
    {"double", grFloat64}, {"bfloat16", grBfloat16}, {"fp16", grFloat16}, {"float16", grFloat16},
    {"fp32", grFloat32},   {"float32", grFloat32},   {"fp64", grFloat64}, {"float64", grFloat64},
    {"bf16", grBfloat16},
};
constexpr std::string_view kOps[] = {"sum", "prod", "max", "min", "avg"};  // grRedOp_t order

// Long spellings of the one-letter options, as nccl-tests has them.
struct LongEntry {
  std::string_view long_name;
  std::string_view flag;
};
constexpr LongEntry kLong[] = {
    {"--minbytes", "-b"}, {"--maxbytes", "-e"},     {"--stepfactor", "-f"}, {"--stepbytes", "-i"},
    {"--iters", "-n"},    {"--warmup_iters", "-w"}, {"--check", "-c"},      {"--datatype", "-d"},
    {"--op", "-o"},       {"--root", "-r"},         {"--agg_iters", "-m"},
};

std::string_view Canonical(std::string_view flag) {
  for (const LongEntry& e : kLong) {
    if (e.long_name == flag) return e.flag;
  }
  return flag;
}

StatusOr<int64_t> Positive(std::string_view flag, const char* value, int64_t min) {
  auto number = gpurun::ParseInt(value);
  if (!number.ok() || *number < min || *number > std::numeric_limits<int>::max()) {
    return InvalidArgument(std::string(flag) + " needs an integer of at least " + std::to_string(min) + ", not '" +
                           value + "'");
  }
  return *number;
}

gpurun::Status SetTypes(const char* value, BenchArgs* args) {
  if (std::string_view(value) == "all") {
    args->types.clear();
    for (int t = 0; t < grNumDataTypes; ++t) args->types.push_back(static_cast<grDataType_t>(t));
    return gpurun::OkStatus();
  }
  auto type = ParseTypeName(value);
  if (!type) return InvalidArgument(std::string("-d: unknown data type '") + value + "'");
  args->types = {*type};
  return gpurun::OkStatus();
}

gpurun::Status SetOps(const char* value, BenchArgs* args) {
  if (std::string_view(value) == "all") {
    args->ops = {grSum, grProd, grMax, grMin, grAvg};
    return gpurun::OkStatus();
  }
  auto op = ParseOpName(value);
  if (!op) return InvalidArgument(std::string("-o: unknown reduction '") + value + "'");
  args->ops = {*op};
  return gpurun::OkStatus();
}

// --device, --compare and --nccl-lib (collectives only).
gpurun::Status SetDeviceOption(std::string_view flag, const char* value, BenchArgs* args) {
  const std::string_view v = value;
  if (flag == "--device") {
    if (v != "host" && v != "cuda")
      return InvalidArgument("--device: expected host or cuda, not '" + std::string(v) + "'");
    args->device = v == "cuda" ? BenchDevice::kCuda : BenchDevice::kHost;
  } else if (flag == "--compare") {
    if (v != "nccl") return InvalidArgument("--compare: the only peer is nccl, not '" + std::string(v) + "'");
    args->compare_nccl = true;
  } else {
    if (v.empty()) return InvalidArgument("--nccl-lib needs a path");
    args->nccl_lib = value;
  }
  return gpurun::OkStatus();
}

bool IsDeviceOption(std::string_view flag) { return flag == "--device" || flag == "--compare" || flag == "--nccl-lib"; }

// The options that depend on each other, checked once all are read.
gpurun::Status CheckCombinations(const BenchArgs& args, bool nccl_lib_given) {
  const bool cuda = args.device == BenchDevice::kCuda;
  if (args.blocking && !cuda) return InvalidArgument("--blocking needs --device cuda (host buffers always block)");
  if (args.compare_nccl && !cuda) return InvalidArgument("--compare nccl needs --device cuda");
  if (args.graph && !cuda) return InvalidArgument("--graph needs --device cuda");
  if (args.graph && args.blocking) {
    return InvalidArgument("--graph and --blocking exclude each other (a graph replays stream-ordered calls)");
  }
  if (nccl_lib_given && !args.compare_nccl) return InvalidArgument("--nccl-lib needs --compare nccl");
  if (args.min_bytes > args.max_bytes) return InvalidArgument("-b is larger than -e");
  return gpurun::OkStatus();
}

// One option with its value; the collective-only and p2p-only ones are
// rejected for the other kind of command.
gpurun::Status SetOption(std::string_view flag, const char* value, BenchArgs* args) {
  const bool coll = !args->colls.empty();
  if (flag == "-b" || flag == "-e" || flag == "-i") {
    auto size = gpurun::ParseSize(value);
    if (!size.ok()) return InvalidArgument(std::string(flag) + ": " + size.status().message());
    (flag == "-b" ? args->min_bytes : flag == "-e" ? args->max_bytes : args->step_bytes) = static_cast<size_t>(*size);
    if (flag == "-i" && *size == 0) return InvalidArgument("-i must be at least 1");
    return gpurun::OkStatus();
  }
  if (flag == "-f") {
    GR_ASSIGN_OR_RETURN(int64_t f, Positive(flag, value, 2));
    args->factor = static_cast<size_t>(f);
  } else if (flag == "-n" || flag == "-w") {
    GR_ASSIGN_OR_RETURN(int64_t n, Positive(flag, value, 1));
    (flag == "-n" ? args->iters : args->warmup) = static_cast<int>(n);
  } else if (!coll && (flag == "-W" || flag == "-D")) {
    GR_ASSIGN_OR_RETURN(int64_t n, Positive(flag, value, 1));
    (flag == "-W" ? args->window : args->delay_us) = static_cast<int>(n);
  } else if (coll && flag == "-c") {
    GR_ASSIGN_OR_RETURN(int64_t n, Positive(flag, value, 0));
    args->checks = static_cast<int>(n);
  } else if (coll && flag == "-m") {
    GR_ASSIGN_OR_RETURN(int64_t n, Positive(flag, value, 1));
    args->agg = static_cast<int>(n);
  } else if (coll && flag == "-d") {
    return SetTypes(value, args);
  } else if (coll && flag == "-o") {
    return SetOps(value, args);
  } else if (coll && flag == "-r") {
    args->all_roots = std::string_view(value) == "all";
    if (!args->all_roots) {
      GR_ASSIGN_OR_RETURN(int64_t r, Positive(flag, value, 0));
      args->root = static_cast<int>(r);
    }
  } else if (coll && flag == "--json") {
    args->json_path = value;
  } else if (coll && IsDeviceOption(flag)) {
    return SetDeviceOption(flag, value, args);
  } else {
    return InvalidArgument("unknown option " + std::string(flag) + " for " + args->command);
  }
  return gpurun::OkStatus();
}

}  // namespace

void PrintBenchUsage() {
  std::fprintf(
      stderr,
      "usage: gpurun -n 2 gpurun-bench latency|bw [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] [-W WINDOW]"
      " [-D USEC]\n"
      "       gpurun -n N gpurun-bench COLLECTIVE|all [-b MIN] [-e MAX] [-f FACTOR | -i STEP] [-n ITERS] [-w WARMUP]\n"
      "                               [-c CHECKS] [-d TYPE|all] [-o OP|all] [-r ROOT|all] [-m AGG] [--json FILE]\n"
      "                               [--device host|cuda] [--blocking | --graph] [--compare nccl] [--nccl-lib PATH]\n"
      "  latency: one-way time of a ping-pong between ranks 0 and 1 (osu_latency)\n"
      "  bw:      streaming bandwidth from rank 0 to rank 1, WINDOW messages in flight (osu_bw)\n"
      "  COLLECTIVE: allreduce bcast reduce allgather reducescatter alltoall gather scatter sendrecv barrier,\n"
      "  printed as nccl-tests does (time = per-iteration average, the slowest rank's; busbw factors of nccl-tests).\n"
      "  sendrecv: every rank sends a block of the size to rank+1 and receives one from rank-1 (mod N) in one call\n"
      "  (nccl-tests' sendrecv_perf; busbw = algbw); it has no in-place form, its in-place columns are N/A.\n"
      "  all: every collective in turn (--json FILE then writes FILE with the collective's name before .json).\n"
      "  TYPE: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16; OP: sum prod max min avg.\n"
      "  -c N checks N times after the timed loop, with exactly predictable inputs (default 1; 0: off).\n"
      "  -m AGG: each timed iteration issues AGG calls in one group (nccl-tests' --agg_iters), each on the next\n"
      "  piece of the buffers; the time is per call. The checked calls are single ones.\n"
      "  Sizes accept units (4K, 1M). Collectives default to -b 8 -e 16M -f 2, -d float -o sum -r 0.\n"
      "  -D sleeps USEC before each wait for the peer (instruction counts under callgrind, not timing).\n"
      "  --device cuda: buffers from cudaMalloc on GPU (GPURUN_LOCAL_RANK mod the visible GPUs); the calls are\n"
      "  enqueued on one stream per rank and timed to a cudaStreamSynchronize; --blocking passes GR_STREAM_HOST;\n"
      "  --graph captures the timed calls (of every library) in one CUDA graph after the eager warm-up and\n"
      "  times one replay of it (nccl-tests -G).\n"
      "  --compare nccl: the same rows through NCCL (dlopen'd; --nccl-lib PATH), with busbw(gpurun)/busbw(nccl);\n"
      "  needs NCCL_NVLS_ENABLE unset or 0 (set to 0 when unset).\n"
      "  Exit status of the collectives: 0 all right, 1 wrong elements, 2 bad arguments or setup, 3 a library\n"
      "  declined a sweep (grUnsupported: reported, the rest ran).\n");
}

StatusOr<BenchArgs> ParseBenchArgs(int argc, char** argv) {
  if (argc < 2) return InvalidArgument("missing command");
  BenchArgs args;
  args.command = argv[1];
  if (args.command == "all") {
    args.colls.assign(std::begin(kEveryColl), std::end(kEveryColl));
  } else if (const auto kind = ParseCollName(args.command)) {
    args.colls = {*kind};
  } else if (args.command != "latency" && args.command != "bw") {
    return InvalidArgument("unknown command '" + args.command + "'");
  }
  if (!args.colls.empty()) {
    args.min_bytes = 8;
    args.max_bytes = 16u << 20;
  }
  bool nccl_lib_given = false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view flag = Canonical(argv[i]);
    if (flag == "--blocking" || flag == "--graph") {  // the options without a value
      if (args.colls.empty()) return InvalidArgument("unknown option " + std::string(flag) + " for " + args.command);
      (flag == "--blocking" ? args.blocking : args.graph) = true;
      continue;
    }
    if (i + 1 >= argc) return InvalidArgument("option " + std::string(argv[i]) + " needs a value");
    nccl_lib_given = nccl_lib_given || flag == "--nccl-lib";
    GR_RETURN_IF_ERROR(SetOption(flag, argv[++i], &args));
  }
  GR_RETURN_IF_ERROR(CheckCombinations(args, nccl_lib_given));
  return args;
}

size_t NextSize(size_t bytes, size_t factor) { return bytes == 0 ? 1 : bytes * factor; }

std::vector<size_t> SweepSizes(const BenchArgs& args) {
  std::vector<size_t> sizes;
  for (size_t bytes = args.min_bytes; bytes <= args.max_bytes;) {
    sizes.push_back(bytes);
    const size_t next = args.step_bytes > 0 ? bytes + args.step_bytes : NextSize(bytes, args.factor);
    if (next <= bytes) break;  // overflow
    bytes = next;
  }
  return sizes;
}

int DefaultIters(const BenchArgs& args, size_t bytes) {
  if (args.iters > 0) return args.iters;
  const size_t budget = size_t{32} << 20;
  return static_cast<int>(std::clamp<size_t>(budget / std::max<size_t>(bytes, 1), 20, 1000));
}

int DefaultWarmup(const BenchArgs& args, size_t bytes) {
  if (args.warmup > 0) return args.warmup;
  return std::clamp(DefaultIters(args, bytes) / 10, 2, 100);
}

const char* TypeName(grDataType_t type) {
  for (const TypeEntry& e : kTypes) {
    if (e.type == type) return e.name.data();
  }
  return "?";
}

const char* OpName(grRedOp_t op) {
  const int i = static_cast<int>(op);
  return i >= 0 && i < grNumOps ? kOps[i].data() : "?";
}

std::optional<grDataType_t> ParseTypeName(std::string_view name) {
  for (const TypeEntry& e : kTypes) {
    if (e.name == name) return e.type;
  }
  return std::nullopt;
}

std::optional<grRedOp_t> ParseOpName(std::string_view name) {
  for (int i = 0; i < grNumOps; ++i) {
    if (kOps[i] == name) return static_cast<grRedOp_t>(i);
  }
  return std::nullopt;
}
