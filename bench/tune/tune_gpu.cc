// gpurun-tune --gpu (tune_gpu.h).
#include "bench/tune/tune_gpu.h"

#include <cstdio>
#include <string>
#include <utility>

#include "coll/device/oneshot_launch.h"
#include "coll/gpu/tree_layout.h"
#include "coll/tuner/gpu_tuner.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

constexpr std::pair<Algo, Protocol> kColumns[] = {{Algo::kRing, Protocol::kLL},     {Algo::kRing, Protocol::kLL128},
                                                  {Algo::kRing, Protocol::kSimple}, {Algo::kTree, Protocol::kLL},
                                                  {Algo::kTree, Protocol::kLL128},  {Algo::kTree, Protocol::kSimple},
                                                  {Algo::kOneShot, Protocol::kLL},  {Algo::kTwoShot, Protocol::kLL}};

}  // namespace

Status PrintGpuFunc(const GpuTuneOptions& options, const CollOverride& user, Func func) {
  GpuTuneInput in;
  in.func = func;
  in.nranks = options.nranks;
  in.max_channels = options.ring_channels;
  const std::string limit = options.nranks > kMaxOneShotRanks ? "a one-shot or two-shot allreduce takes at most " +
                                                                    std::to_string(kMaxOneShotRanks) + " ranks"
                                                              : "";
  in.oneshot_limit = limit;
  in.oneshot_max_bytes = func == Func::kAllReduce && limit.empty() ? options.oneshot_bytes : 0;
  in.forced_channels = static_cast<int>(params::kNChannels.Get());
  // The GPU executor's rule (gpu_launch.cc): the tree takes the ring's
  // channels up to its own limit, for allreduce.
  in.tree_max_channels = func == Func::kAllReduce ? GpuTreeChannels(in.max_channels) : 0;
  std::printf(
      "# GPU %s, %d ranks (one per GPU, one host), %d ring channels, %d tree channels, one-shot and two-shot up to "
      "%llu B; "
      "GPURUN_ALGO='%s' "
      "GPURUN_PROTO='%s' GPURUN_NCHANNELS=%d%s\n",
      FuncName(func), in.nranks, in.max_channels, in.tree_max_channels,
      static_cast<unsigned long long>(in.oneshot_max_bytes), user.algo.Describe().c_str(),
      user.proto.Describe().c_str(), in.forced_channels, in.forced_channels == 0 ? " (auto)" : "");
  std::printf("%12s %8s %7s %4s %10s", "bytes", "algo", "proto", "ch", "time(us)");
  for (const auto& [a, p] : kColumns) std::printf(" %16s", (std::string(AlgoName(a)) + "/" + ProtocolName(p)).c_str());
  std::printf("\n");
  for (uint64_t bytes = options.min_bytes; bytes <= options.max_bytes; bytes *= options.factor) {
    in.bytes = bytes;
    GR_ASSIGN_OR_RETURN(const TuneChoice choice, ChooseGpu(in, user, true));
    std::printf("%12llu %8s %7s %4d %10.2f", static_cast<unsigned long long>(bytes), AlgoName(choice.algo),
                ProtocolName(choice.proto), choice.nchannels, choice.predicted_us);
    for (const auto& [a, p] : kColumns) {
      int channels = 0;
      const double t = user.Allowed(func, a, p) ? PredictGpuCandidate(in, a, p, &channels) : -1;
      char cell[40] = "-";
      if (t >= 0) (void)std::snprintf(cell, sizeof(cell), "%.2f/%dch", t, channels);
      std::printf(" %16s", cell);
    }
    std::printf("\n");
    if (bytes > options.max_bytes / options.factor) break;
  }
  return OkStatus();
}

}  // namespace gpurun::coll
