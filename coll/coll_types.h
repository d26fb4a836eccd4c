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

// Algorithms implemented so far (NCCL_ALGO_TREE = 0, NCCL_ALGO_RING = 1);
// NVLS and the direct algorithms take the next values when they arrive.
enum class Algo : uint8_t { kTree = 0, kRing = 1 };
inline constexpr int kNumAlgos = 2;

// Protocols (NCCL_PROTO_LL = 0, NCCL_PROTO_LL128 = 1, NCCL_PROTO_SIMPLE = 2);
// their wire formats are in coll/wire_format.h.
enum class Protocol : uint8_t { kLL = 0, kLL128 = 1, kSimple = 2 };
inline constexpr int kNumProtocols = 3;

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_COLL_TYPES_H_
