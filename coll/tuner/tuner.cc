// ChooseHost / PredictHostUs (tuner.h) over the host model (host_model.h) and
// tables (tuner_tables_host.cc): the override filters, GPURUN_NCHANNELS, the
// TUNING log. The model is cached per thread for the last communicator shape
// as latency + bytes * per_byte per candidate, so a call costs at most a
// dozen multiply-adds and no allocation unless a log line is on.
#include <algorithm>
#include <cstdio>
#include <string>

#include "coll/planner/planner.h"
#include "coll/tuner/host_model.h"
#include "coll/tuner/tuner.h"
#include "coll/tuner/tuner_tables.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

// Candidates in the order that wins ties: ring, tree, oneshot, twoshot; Simple first
// (so one rank, where every candidate costs the base, gets NCCL's
// ring/Simple), then LL128, then LL.
constexpr Algo kHostAlgos[] = {Algo::kRing, Algo::kTree, Algo::kOneShot, Algo::kTwoShot};
constexpr Protocol kHostProtos[] = {Protocol::kSimple, Protocol::kLL128, Protocol::kLL};

// One candidate's time as latency + bytes * per_byte (per_byte < 0: the
// host path does not implement it).
struct LinearCost {
  double latency_us = 0;
  double per_byte_us = -1;

  double At(uint64_t bytes) const { return latency_us + static_cast<double>(bytes) * per_byte_us; }
};

LinearCost Linearize(const HostShape& shape, Func func, Algo algo, Protocol proto, int nchannels) {
  const HostCost cost = HostCostOf(kHostTables, shape, func, algo, proto, nchannels);
  if (!cost.implemented) return LinearCost{};
  return LinearCost{cost.latency_us, cost.sides == 0 ? 0 : cost.sides / (1000 * cost.side_gbps)};
}

constexpr int kNumHostAlgos = sizeof(kHostAlgos) / sizeof(kHostAlgos[0]);

// Per thread, the last communicator shape's linear costs for every host
// candidate and automatic channel count, so a choice is a few multiply-adds.
struct ShapeCache {
  int nranks = -1;
  int nnodes = -1;
  int local_ranks = -1;
  HostShape shape;
  LinearCost cost[kNumFuncs][kNumHostAlgos][kNumProtocols][kHostAutoMaxChannels];
};
thread_local ShapeCache t_shape_cache;

const ShapeCache& CacheFor(const TuneInput& input) {
  const int nnodes = input.nnodes < 1 ? 1 : input.nnodes;
  const int local = nnodes == 1 ? input.nranks : input.local_ranks;
  ShapeCache& cache = t_shape_cache;
  if (cache.nranks != input.nranks || cache.nnodes != nnodes || cache.local_ranks != local) {
    cache.shape = MakeHostShape(input.nranks, nnodes, local);
    for (int f = 0; f < kNumFuncs; ++f) {
      for (int a = 0; a < kNumHostAlgos; ++a) {
        for (int p = 0; p < kNumProtocols; ++p) {
          for (int c = 1; c <= kHostAutoMaxChannels; ++c) {
            cache.cost[f][a][p][c - 1] =
                Linearize(cache.shape, static_cast<Func>(f), kHostAlgos[a], static_cast<Protocol>(p), c);
          }
        }
      }
    }
    cache.nranks = input.nranks;
    cache.nnodes = nnodes;
    cache.local_ranks = local;
  }
  return cache;
}

// The best channel count for candidate (algo index `a`, proto): forced, or
// the cheapest of 1..kHostAutoMaxChannels. Returns the time (negative: not
// implemented).
double BestChannels(const ShapeCache& cache, const TuneInput& input, int a, Protocol proto, int forced,
                    int* nchannels) {
  const int f = static_cast<int>(input.func), p = static_cast<int>(proto);
  if (forced > kHostAutoMaxChannels) {
    *nchannels = forced;
    const LinearCost cost = Linearize(cache.shape, input.func, kHostAlgos[a], proto, forced);
    return cost.per_byte_us < 0 ? -1 : cost.At(input.bytes);
  }
  double best = -1;
  for (int c = forced > 0 ? forced : 1; c <= (forced > 0 ? forced : kHostAutoMaxChannels); ++c) {
    const LinearCost& cost = cache.cost[f][a][p][c - 1];
    if (cost.per_byte_us < 0) continue;
    const double t = cost.At(input.bytes);
    if (best < 0 || t < best) {
      best = t;
      *nchannels = c;
    }
  }
  return best;
}

// What the host path implements for `func` on `nnodes` nodes: "ring with ll, ll128, simple; tree with ...".
// A protocol is there where its bandwidth for the function is (tuner_tables.h); no LL128 across nodes.
std::string ImplementedText(Func func, int nnodes) {
  const bool reduces = HostReduces(func);
  std::string out;
  for (Algo a : kHostAlgos) {
    if (!kHostTables.implemented[static_cast<int>(func)][static_cast<int>(a)]) continue;
    std::string protos;
    for (Protocol p : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
      const auto ai = static_cast<int>(a), pi = static_cast<int>(p);
      const double bw = reduces ? kHostTables.reduce_gbps[ai][pi] : kHostTables.copy_gbps[ai][pi];
      if (bw <= 0 || (nnodes > 1 && p == Protocol::kLL128)) continue;
      protos += (protos.empty() ? "" : ", ") + std::string(ProtocolName(p));
    }
    out += (out.empty() ? "" : "; ") + std::string(AlgoName(a)) + " with " + protos;
  }
  if (nnodes > 1) out += std::string("; not ll128: ") + kHostLL128NetReason;
  return out;
}

Status NothingLeft(const TuneInput& input, const CollOverride& override_masks) {
  const char* func = FuncName(input.func);
  if (!override_masks.Restricted(input.func)) {
    return InternalError(std::string("the host tuner has no candidate for ") + func + " with " +
                         std::to_string(input.nranks) + " ranks (a hole in tuner_tables_host.cc)");
  }
  return InvalidUsage(override_masks.DescribeRestriction(input.func) + " leaves nothing the host path implements for " +
                      func + " on " + std::to_string(input.nranks) + " ranks across " + std::to_string(input.nnodes) +
                      " host(s) (it has: " + ImplementedText(input.func, input.nnodes) + ")");
}

void LogChoice(const TuneInput& input, const TuneChoice& choice) {
  GR_LOG(Info, Tuning) << FuncName(input.func) << " " << input.bytes << " B, " << input.nranks << " ranks on "
                       << input.nnodes << " node(s): " << AlgoName(choice.algo) << "/" << ProtocolName(choice.proto)
                       << " " << choice.nchannels << " channel(s), predicted " << choice.predicted_us << " us";
}

void LogCandidates(const TuneInput& input, const double (&times)[kNumAlgos][kNumProtocols],
                   const int (&channels)[kNumAlgos][kNumProtocols]) {
  std::string text;
  for (Algo a : kHostAlgos) {
    for (Protocol p : kHostProtos) {
      const double t = times[static_cast<int>(a)][static_cast<int>(p)];
      if (t < 0) continue;
      char item[96];
      (void)std::snprintf(item, sizeof(item), " %s/%s %.3f us (%d ch)", AlgoName(a), ProtocolName(p), t,
                          channels[static_cast<int>(a)][static_cast<int>(p)]);
      text += item;
    }
  }
  GR_LOG(Trace, Tuning) << FuncName(input.func) << " " << input.bytes << " B candidates:" << text;
}

// Bytes of one message of oneshot allgather or twoshot allreduce (a rank's
// block) or oneshot broadcast (the buffer).
uint64_t MessageBytes(const TuneInput& input) {
  return input.func == Func::kBroadcast ? input.bytes
                                        : input.bytes / static_cast<uint64_t>(input.nranks < 1 ? 1 : input.nranks);
}

}  // namespace

StatusOr<TuneChoice> ChooseHost(const TuneInput& input, const CollOverride& override_masks) {
  const int64_t forced = params::kNChannels.Get();
  if (forced > kHostMaxChannels) {
    return InvalidUsage("GPURUN_NCHANNELS=" + std::to_string(forced) + " is more than the host path's " +
                        std::to_string(kHostMaxChannels) + " channels (" + FuncName(input.func) + ")");
  }
  const ShapeCache& cache = CacheFor(input);
  const bool trace = Logger::Enabled(LogLevel::kTrace, Subsys::kTuning);
  double times[kNumAlgos][kNumProtocols];
  int channels[kNumAlgos][kNumProtocols] = {};
  if (trace) std::fill(&times[0][0], &times[0][0] + kNumAlgos * kNumProtocols, -1.0);

  TuneChoice best;
  bool found = false;
  // First without messages of at most input.message_eager_bytes, which the
  // engine copies twice (across hosts also net_message_eager_bytes; under
  // all_net without any; tuner.h), then, if nothing was left, with them.
  const uint64_t eager_bytes =
      input.nnodes > 1 ? std::max(input.message_eager_bytes, input.net_message_eager_bytes) : input.message_eager_bytes;
  const bool small_messages = input.all_net || MessageBytes(input) <= eager_bytes;
  for (int pass = 0; pass < 2 && !found; ++pass) {
    for (int ai = 0; ai < kNumHostAlgos; ++ai) {
      const Algo a = kHostAlgos[ai];
      if (!kHostTables.implemented[static_cast<int>(input.func)][static_cast<int>(a)]) continue;
      if (pass == 0 && small_messages && HostRunsAsMessages(input.func, a)) continue;
      for (Protocol p : kHostProtos) {
        if (!override_masks.Allowed(input.func, a, p)) continue;
        int nchannels = 1;
        const double t = BestChannels(cache, input, ai, p, static_cast<int>(forced), &nchannels);
        if (t < 0) continue;
        if (trace) {
          times[static_cast<int>(a)][static_cast<int>(p)] = t;
          channels[static_cast<int>(a)][static_cast<int>(p)] = nchannels;
        }
        if (!found || t < best.predicted_us) {
          best = TuneChoice{a, p, nchannels, t};
          found = true;
        }
      }
    }
  }
  if (!found) return NothingLeft(input, override_masks);
  LogChoice(input, best);
  if (trace) LogCandidates(input, times, channels);
  return best;
}

double PredictHostUs(const TuneInput& input, Algo algo, Protocol proto, int nchannels) {
  return PredictHost(kHostTables, CacheFor(input).shape, input.func, algo, proto, nchannels, input.bytes);
}

}  // namespace gpurun::coll
