// gpurun-tune: the host tuner's choice per message size, from the cost model
// alone (no job, no communicator): for each size the chosen (algorithm,
// protocol, channels) and predicted time, then every candidate's predicted
// time as a column ("-" where GPURUN_ALGO / GPURUN_PROTO exclude it). Reads
// GPURUN_ALGO, GPURUN_PROTO, GPURUN_NCHANNELS and the GPURUN_DEBUG* logging
// variables from the environment like a job would.
//
//   gpurun-tune [FUNC|all] [-n RANKS] [-N NODES] [-b MIN] [-e MAX] [-f FACTOR]
//   gpurun-tune --gpu [FUNC|all] [-n RANKS] [-c RING_CHANNELS] [-b MIN] [-e MAX] [-f FACTOR]
//
// --gpu: the GPU path's choice (coll/tuner/gpu_tuner.h) for one rank per GPU
// on one host, with a ring of RING_CHANNELS channels (default 128, what
// 2 x H200 NV18 gets) and one-shot up to GPURUN_GPU_ONESHOT_BYTES.
//
// FUNC: broadcast, reduce, allgather, reducescatter, allreduce (default all);
// sizes take units (8, 4K, 1G); defaults -n 2 -N 1 -b 8 -e 1G -f 2. With
// NODES > 1 the ranks are spread evenly over the nodes, in blocks.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "bench/tune/tune_gpu.h"
#include "coll/device/dev_launch.h"
#include "coll/tuner/override.h"
#include "coll/tuner/tuner.h"
#include "coll/tuner/tuner_tables.h"
#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#include "runtime/base/parse.h"

namespace gpurun::coll {
namespace {

struct Options {
  std::vector<Func> funcs;
  int nranks = 2;
  int nnodes = 1;
  uint64_t min_bytes = 8;
  uint64_t max_bytes = uint64_t{1} << 30;
  uint64_t factor = 2;
  bool gpu = false;
  int ring_channels = 128;
};

constexpr Algo kAlgos[] = {Algo::kRing, Algo::kTree, Algo::kOneShot};
constexpr Protocol kProtos[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};

Status ParseArgs(int argc, char** argv, Options* options) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--gpu") {
      options->gpu = true;
      continue;
    }
    if (arg.size() == 2 && arg[0] == '-' && std::string_view("nNbefc").find(arg[1]) != std::string_view::npos) {
      if (i + 1 >= argc) return InvalidArgument(std::string(arg) + " needs a value");
      const std::string_view value = argv[++i];
      GR_ASSIGN_OR_RETURN(int64_t v, arg[1] == 'b' || arg[1] == 'e' ? ParseSize(value) : ParseInt(value));
      if (v < 1 || (arg[1] == 'f' && v < 2)) {
        return InvalidArgument(std::string(arg) + " " + std::string(value) + " is out of range");
      }
      switch (arg[1]) {
        case 'n': options->nranks = static_cast<int>(v); break;
        case 'N': options->nnodes = static_cast<int>(v); break;
        case 'c': options->ring_channels = static_cast<int>(v); break;
        case 'b': options->min_bytes = static_cast<uint64_t>(v); break;
        case 'e': options->max_bytes = static_cast<uint64_t>(v); break;
        default: options->factor = static_cast<uint64_t>(v); break;
      }
      continue;
    }
    if (arg == "all") {
      for (int f = 0; f < kNumFuncs; ++f) options->funcs.push_back(static_cast<Func>(f));
      continue;
    }
    bool known = false;
    for (int f = 0; f < kNumFuncs; ++f) {
      if (ToLower(arg) != FuncName(static_cast<Func>(f))) continue;
      options->funcs.push_back(static_cast<Func>(f));
      known = true;
    }
    if (!known) {
      return InvalidArgument(
          "unknown argument '" + std::string(arg) +
          "'; usage: gpurun-tune [--gpu] [FUNC|all] [-n RANKS] [-N NODES] [-c RING_CHANNELS] [-b MIN] [-e MAX] "
          "[-f FACTOR]");
    }
  }
  if (options->funcs.empty()) {
    for (int f = 0; f < kNumFuncs; ++f) options->funcs.push_back(static_cast<Func>(f));
  }
  if (options->nnodes > options->nranks) return InvalidArgument("-N cannot exceed -n (each node needs a rank)");
  if (options->gpu && options->nnodes != 1) return InvalidArgument("--gpu models one host: -N must be 1");
  if (options->ring_channels > kMaxDeviceChannels) {
    return InvalidArgument("-c " + std::to_string(options->ring_channels) + " is more than the GPU ring's " +
                           std::to_string(kMaxDeviceChannels) + " channels at most");
  }
  return OkStatus();
}

// One candidate's time with the channel count ChooseHost would give it
// (GPURUN_NCHANNELS, else the cheapest automatic count); -1 when
// GPURUN_ALGO / GPURUN_PROTO exclude it. Through PredictHostUs, so that the
// columns add no TUNING log lines.
TuneChoice Candidate(const TuneInput& input, const CollOverride& user, Algo a, Protocol p) {
  TuneChoice best{a, p, 0, -1};
  if (!user.Allowed(input.func, a, p)) return best;
  const int forced = static_cast<int>(params::kNChannels.Get());
  for (int c = forced > 0 ? forced : 1; c <= (forced > 0 ? forced : kHostAutoMaxChannels); ++c) {
    const double t = PredictHostUs(input, a, p, c);
    if (t >= 0 && (best.predicted_us < 0 || t < best.predicted_us)) {
      best.predicted_us = t;
      best.nchannels = c;
    }
  }
  return best;
}

Status PrintFunc(const Options& options, const CollOverride& user, Func func) {
  TuneInput input;
  input.func = func;
  input.nranks = options.nranks;
  input.nnodes = options.nnodes;
  input.local_ranks = (options.nranks + options.nnodes - 1) / options.nnodes;
  input.message_eager_bytes = static_cast<uint64_t>(params::kShmEagerLimit.Get());  // as HostColl takes it
  std::vector<std::pair<Algo, Protocol>> columns;
  for (Algo a : kAlgos) {
    if (!kHostTables.implemented[static_cast<int>(func)][static_cast<int>(a)]) continue;
    for (Protocol p : kProtos) columns.emplace_back(a, p);
  }
  input.bytes = options.min_bytes;
  GR_RETURN_IF_ERROR(ChooseHost(input, user).status());  // a forced choice it cannot honour fails here
  std::printf("# %s, %d ranks on %d node(s); GPURUN_ALGO='%s' GPURUN_PROTO='%s' GPURUN_NCHANNELS=%lld%s\n",
              FuncName(func), input.nranks, input.nnodes, user.algo.Describe().c_str(), user.proto.Describe().c_str(),
              static_cast<long long>(params::kNChannels.Get()), params::kNChannels.Get() == 0 ? " (auto)" : "");
  std::printf("%12s %7s %7s %3s %12s", "bytes", "algo", "proto", "ch", "time(us)");
  for (const auto& [a, p] : columns) {
    std::printf(" %14s", (std::string(AlgoName(a)) + "/" + ProtocolName(p)).c_str());
  }
  std::printf("\n");
  for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= options.factor) {
    input.bytes = bytes;
    GR_ASSIGN_OR_RETURN(TuneChoice choice, ChooseHost(input, user));
    std::printf("%12llu %7s %7s %3d %12.3f", static_cast<unsigned long long>(bytes), AlgoName(choice.algo),
                ProtocolName(choice.proto), choice.nchannels, choice.predicted_us);
    for (const auto& [a, p] : columns) {
      const TuneChoice one = Candidate(input, user, a, p);
      if (one.predicted_us < 0) {
        std::printf(" %14s", "-");
      } else {
        char cell[32];
        if (one.nchannels > 1) {
          (void)std::snprintf(cell, sizeof(cell), "%.3f/%dch", one.predicted_us, one.nchannels);
        } else {
          (void)std::snprintf(cell, sizeof(cell), "%.3f", one.predicted_us);
        }
        std::printf(" %14s", cell);
      }
    }
    std::printf("\n");
    if (bytes > options.max_bytes / options.factor) break;
  }
  return OkStatus();
}

Status Run(int argc, char** argv) {
  GR_RETURN_IF_ERROR(ParamRegistry::Global().Load(ProcessEnv()));
  Logger::ConfigureFromParams();  // GPURUN_DEBUG=TRACE GPURUN_DEBUG_SUBSYS=TUNING shows each choice's log
  Options options;
  GR_RETURN_IF_ERROR(ParseArgs(argc, argv, &options));
  GR_ASSIGN_OR_RETURN(CollOverride user, LoadCollOverride());
  for (size_t i = 0; i < options.funcs.size(); ++i) {
    if (i > 0) std::printf("\n");
    if (options.gpu) {
      GpuTuneOptions g;
      g.nranks = options.nranks;
      g.ring_channels = options.ring_channels;
      g.oneshot_bytes = static_cast<uint64_t>(params::kGpuOneShotBytes.Get());
      g.min_bytes = options.min_bytes;
      g.max_bytes = options.max_bytes;
      g.factor = options.factor;
      GR_RETURN_IF_ERROR(PrintGpuFunc(g, user, options.funcs[i]));
      continue;
    }
    GR_RETURN_IF_ERROR(PrintFunc(options, user, options.funcs[i]));
  }
  return OkStatus();
}

}  // namespace
}  // namespace gpurun::coll

int main(int argc, char** argv) {
  const gpurun::Status status = gpurun::coll::Run(argc, argv);
  if (!status.ok()) {
    (void)std::fprintf(stderr, "gpurun-tune: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
