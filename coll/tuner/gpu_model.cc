// The GPU cost model (gpu_model.h).
#include "coll/tuner/gpu_model.h"

#include <algorithm>

#include "coll/int_math.h"
#include "coll/patterns/double_binary_tree.h"
#include "coll/patterns/step_counts.h"

namespace gpurun::coll {
namespace {

double BusFactor(Func func, Algo algo, int nranks) {
  const double n = nranks;
  if (algo == Algo::kOneShot) return n - 1;
  switch (func) {
    case Func::kAllReduce: return 2 * (n - 1) / n;
    case Func::kAllGather:
    case Func::kReduceScatter: return (n - 1) / n;
    case Func::kBroadcast:
    case Func::kReduce: return 1;
  }
  return 1;
}

}  // namespace

int GpuChannels(const GpuTunerTables& tables, Protocol proto, uint64_t bytes, int max_channels) {
  const uint64_t per = Max<uint64_t>(1, tables.min_channel_bytes[static_cast<int>(proto)]);
  const uint64_t want = Max<uint64_t>(1, DivUp(bytes, per));
  return static_cast<int>(Min<uint64_t>(want, static_cast<uint64_t>(std::max(max_channels, 1))));
}

double PredictGpu(const GpuTunerTables& tables, Func func, Algo algo, Protocol proto, int nranks, int nchannels,
                  uint64_t bytes) {
  const int f = static_cast<int>(func), a = static_cast<int>(algo), p = static_cast<int>(proto);
  if (!tables.implemented[f][a][p]) return -1;
  if (nranks <= 1) return tables.base_us[f][a][p];
  const int depth = algo == Algo::kTree ? std::max(TreeDepth(nranks, 0), TreeDepth(nranks, 1)) : 0;
  const int steps = algo == Algo::kOneShot   ? 1
                    : algo == Algo::kTwoShot ? 2
                                             : AlgorithmSteps(PatternOf(func, algo), nranks, depth);
  const double busbw = std::min(std::max(nchannels, 1) * tables.channel_gbps[f][a][p], tables.max_gbps[f][a][p]);
  return tables.base_us[f][a][p] + steps * tables.hop_us[f][a][p] +
         static_cast<double>(bytes) * BusFactor(func, algo, nranks) / (1000 * busbw);
}

}  // namespace gpurun::coll
