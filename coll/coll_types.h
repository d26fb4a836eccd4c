// The enumerations that name a collective plan: which function, which
// algorithm (who talks to whom) and which protocol (how one edge encodes data
// and readiness). Values follow NCCL's numbering so TUNING logs read the same
// (digest §10: algo 0 = Tree, 1 = Ring; proto 0 = LL, 1 = LL128, 2 = Simple).
#ifndef GPURUN_COLL_COLL_TYPES_H_
#define GPURUN_COLL_COLL_TYPES_H_

#include <cstdint>

#include "coll/device_compat.h"

namespace gpurun::coll {

// Collective functions with their own device schedule, in NCCL's ncclFunc_t
// order (digest §4.2). The others lower onto these or onto point-to-point:
// allgatherv, alltoall(v), gather and scatter, barrier (a tiny allreduce).
enum class Func : uint8_t { kBroadcast = 0, kReduce = 1, kAllGather = 2, kReduceScatter = 3, kAllReduce = 4 };
inline constexpr int kNumFuncs = 5;

// Algorithms. Tree and ring keep NCCL's values (NCCL_ALGO_TREE = 0,
// NCCL_ALGO_RING = 1); from 2 on the values are gpurun's own (NCCL's CollNet,
// NVLS-tree and PAT have no counterpart here). NVLS (NVLink SHARP multicast)
// is named so that GPURUN_ALGO and the tuner's tables can name it; nothing
// implements it. The one-shot / two-shot direct algorithms for small
// allreduces have no pattern (PatternOf in patterns/step_counts.h covers
// tree and ring); the cost models count their steps themselves.
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

// Element types and reduction operations, numbered as grDataType_t /
// grRedOp_t (and ncclDataType_t / ncclRedOp_t), so a public value converts by
// static_cast once the API layer has range-checked it.
enum class DataType : uint8_t {
  kInt8 = 0,
  kUint8 = 1,
  kInt32 = 2,
  kUint32 = 3,
  kInt64 = 4,
  kUint64 = 5,
  kFloat16 = 6,
  kFloat32 = 7,
  kFloat64 = 8,
  kBfloat16 = 9
};
inline constexpr int kNumDataTypes = 10;

enum class RedOp : uint8_t { kSum = 0, kProd = 1, kMax = 2, kMin = 3, kAvg = 4 };
inline constexpr int kNumRedOps = 5;

GR_HOST_DEVICE constexpr int ElemSize(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUint8: return 1;
    case DataType::kFloat16:
    case DataType::kBfloat16: return 2;
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kFloat32: return 4;
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kFloat64: return 8;
  }
  return 1;
}

constexpr const char* DataTypeName(DataType type) {
  switch (type) {
    case DataType::kInt8: return "int8";
    case DataType::kUint8: return "uint8";
    case DataType::kInt32: return "int32";
    case DataType::kUint32: return "uint32";
    case DataType::kInt64: return "int64";
    case DataType::kUint64: return "uint64";
    case DataType::kFloat16: return "half";
    case DataType::kFloat32: return "float";
    case DataType::kFloat64: return "double";
    case DataType::kBfloat16: return "bfloat16";
  }
  return "?";
}

constexpr const char* RedOpName(RedOp op) {
  switch (op) {
    case RedOp::kSum: return "sum";
    case RedOp::kProd: return "prod";
    case RedOp::kMax: return "max";
    case RedOp::kMin: return "min";
    case RedOp::kAvg: return "avg";
  }
  return "?";
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_COLL_TYPES_H_
