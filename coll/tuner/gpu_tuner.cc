// ChooseGpu (gpu_tuner.h).
#include "coll/tuner/gpu_tuner.h"

#include <cstdio>
#include <string>

#include "coll/tuner/gpu_model.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

struct Candidate {
  Algo algo;
  Protocol proto;
};
// In the order that wins ties.
constexpr Candidate kCandidates[] = {{Algo::kRing, Protocol::kSimple}, {Algo::kRing, Protocol::kLL128},
                                     {Algo::kRing, Protocol::kLL},     {Algo::kTree, Protocol::kSimple},
                                     {Algo::kTree, Protocol::kLL128},  {Algo::kTree, Protocol::kLL},
                                     {Algo::kOneShot, Protocol::kLL},  {Algo::kTwoShot, Protocol::kLL}};
constexpr int kNumCandidates = sizeof(kCandidates) / sizeof(kCandidates[0]);

std::string Has(const GpuTuneInput& in) {
  std::string text = "ring with ll, simple";
  text += in.ll128_limit.empty() ? ", ll128" : "; not ll128: " + std::string(in.ll128_limit);
  if (in.func != Func::kAllReduce) return text;
  if (!in.tree_limit.empty()) {
    text += "; not tree: " + std::string(in.tree_limit);
  } else {
    text += "; tree with ll, simple";
    text += in.tree_ll128_limit.empty() ? ", ll128" : " (not ll128: " + std::string(in.tree_ll128_limit) + ")";
    text += " on up to " + std::to_string(in.tree_max_channels) + " channels";
  }
  if (!in.oneshot_limit.empty()) return text + "; not oneshot or twoshot: " + std::string(in.oneshot_limit);
  return text + "; oneshot and twoshot with ll up to GPURUN_GPU_ONESHOT_BYTES=" + std::to_string(in.oneshot_max_bytes) +
         " B (this call: " + std::to_string(in.bytes) + " B)";
}

Status NothingLeft(const GpuTuneInput& in, const CollOverride& o) {
  const char* func = FuncName(in.func);
  if (!o.Restricted(in.func)) return InternalError(std::string("the GPU tuner has no candidate for ") + func);
  return InvalidUsage(o.DescribeRestriction(in.func) + " leaves nothing the GPU path can run for this " + func +
                      " (it has: " + Has(in) + ")");
}

void LogCandidates(const GpuTuneInput& in, const double (&times)[kNumCandidates],
                   const int (&channels)[kNumCandidates]) {
  std::string text;
  for (int i = 0; i < kNumCandidates; ++i) {
    if (times[i] < 0) continue;
    char item[96];
    (void)std::snprintf(item, sizeof(item), " %s/%s %.2f us (%d ch)", AlgoName(kCandidates[i].algo),
                        ProtocolName(kCandidates[i].proto), times[i], channels[i]);
    text += item;
  }
  GR_LOG(Trace, Tuning) << "GPU " << FuncName(in.func) << " " << in.bytes << " B candidates:" << text;
}

}  // namespace

double PredictGpuCandidate(const GpuTuneInput& in, Algo algo, Protocol proto, int* nchannels) {
  const GpuTunerTables& t = kH200NvlinkTables;
  if (algo == Algo::kTree) {
    if (!in.tree_limit.empty() || in.tree_max_channels < 1 || in.forced_channels > in.tree_max_channels) return -1;
    if (proto == Protocol::kLL128 && !in.tree_ll128_limit.empty()) return -1;
  } else if (proto == Protocol::kLL128 && !in.ll128_limit.empty()) {
    return -1;
  }
  if (algo == Algo::kOneShot || algo == Algo::kTwoShot) {
    if (!in.oneshot_limit.empty() || in.bytes > in.oneshot_max_bytes) return -1;
    *nchannels = 1;
  } else if (algo == Algo::kTree) {
    *nchannels = in.forced_channels > 0 ? in.forced_channels : GpuChannels(t, proto, in.bytes, in.tree_max_channels);
  } else {
    *nchannels = in.forced_channels > 0 ? in.forced_channels : GpuChannels(t, proto, in.bytes, in.max_channels);
  }
  return PredictGpu(t, in.func, algo, proto, in.nranks, *nchannels, in.bytes);
}

StatusOr<TuneChoice> ChooseGpu(const GpuTuneInput& in, const CollOverride& o, bool honour_override) {
  if (in.forced_channels > in.max_channels) {
    return InvalidUsage("GPURUN_NCHANNELS=" + std::to_string(in.forced_channels) + " is more than the GPU ring's " +
                        std::to_string(in.max_channels) + " channels (GPURUN_GPU_NCHANNELS, " + FuncName(in.func) +
                        ")");
  }
  double times[kNumCandidates];
  for (double& t : times) t = -1;
  int channels[kNumCandidates] = {};
  TuneChoice best;
  bool found = false;
  for (int i = 0; i < kNumCandidates; ++i) {
    const Candidate c = kCandidates[i];
    if (honour_override && !o.Allowed(in.func, c.algo, c.proto)) continue;
    const double t = PredictGpuCandidate(in, c.algo, c.proto, &channels[i]);
    if (t < 0) continue;
    times[i] = t;
    if (!found || t < best.predicted_us) {
      best = TuneChoice{c.algo, c.proto, channels[i], t};
      found = true;
    }
  }
  if (!found) return NothingLeft(in, o);
  GR_LOG(Info, Tuning) << "GPU " << FuncName(in.func) << " " << in.bytes << " B, " << in.nranks
                       << " ranks: " << AlgoName(best.algo) << "/" << ProtocolName(best.proto) << " " << best.nchannels
                       << " channel(s), predicted " << best.predicted_us << " us";
  if (Logger::Enabled(LogLevel::kTrace, Subsys::kTuning)) LogCandidates(in, times, channels);
  return best;
}

}  // namespace gpurun::coll
