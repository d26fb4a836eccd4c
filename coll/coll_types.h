// The enumerations that name a collective plan: which function, which
// algorithm (who talks to whom) and which protocol (how one edge encodes data
// and readiness). Values follow NCCL's numbering so TUNING logs read the same
// (digest §10: algo 0 = Tree, 1 = Ring; proto 0 = LL, 1 = LL128, 2 = Simple).
#ifndef GPURUN_COLL_COLL_TYPES_H_
#define GPURUN_COLL_COLL_TYPES_H_

#include <cstdint>

namespace gpurun::coll {

// Collective functions with their own device schedule, in NCCL's ncclFunc_t
// order (digest §4.2). The others lower onto these or onto point-to-point:
// allgatherv, alltoall(v), gather and scatter, barrier (a tiny allreduce).
enum class Func : uint8_t { kBroadcast = 0, kReduce = 1, kAllGather = 2, kReduceScatter = 3, kAllReduce = 4 };
inline constexpr int kNumFuncs = 5;

// Algorithms. Tree and ring keep NCCL's values (NCCL_ALGO_TREE = 0,
// NCCL_ALGO_RING = 1); from 2 on the values are gpurun's own (NCCL's CollNet,
// NVLS-tree and PAT have no counterpart here). NVLS (NVLink SHARP multicast)
// and the one-shot / two-shot direct algorithms for small messages are named
// now so that GPURUN_ALGO and the tuner's tables can name them; their
// schedules come later (PatternOf in patterns/step_counts.h covers tree and
// ring only).
enum class Algo : uint8_t { kTree = 0, kRing = 1, kNvls = 2, kOneShot = 3, kTwoShot = 4 };
inline constexpr int kNumAlgos = 5;

// Protocols (NCCL_PROTO_LL = 0, NCCL_PROTO_LL128 = 1, NCCL_PROTO_SIMPLE = 2);
// their wire formats are in coll/wire_format.h.
enum class Protocol : uint8_t { kLL = 0, kLL128 = 1, kSimple = 2 };
inline constexpr int kNumProtocols = 3;

// Lower-case names, as GPURUN_ALGO / GPURUN_PROTO spell them (any case is
// accepted there) and as logs print them. A new enumerator without a name
// fails the build (-Wswitch).
constexpr const char* FuncName(Func func) {
  switch (func) {
    case Func::kBroadcast: return "broadcast";
    case Func::kReduce: return "reduce";
    case Func::kAllGather: return "allgather";
    case Func::kReduceScatter: return "reducescatter";
    case Func::kAllReduce: return "allreduce";
  }
  return "?";
}

constexpr const char* AlgoName(Algo algo) {
  switch (algo) {
    case Algo::kTree: return "tree";
    case Algo::kRing: return "ring";
    case Algo::kNvls: return "nvls";
    case Algo::kOneShot: return "oneshot";
    case Algo::kTwoShot: return "twoshot";
  }
  return "?";
}

constexpr const char* ProtocolName(Protocol proto) {
  switch (proto) {
    case Protocol::kLL: return "ll";
    case Protocol::kLL128: return "ll128";
    case Protocol::kSimple: return "simple";
  }
  return "?";
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_COLL_TYPES_H_
