// Names and tables of the collective correctness matrix (matrix_spec.h).
#include "tests/matrix/matrix_spec.h"

#include <array>

namespace gpurun::matrix {
namespace {

constexpr std::array<const char*, kNumColls> kCollNames = {
    "allreduce", "bcast",     "broadcast", "reduce",  "allgather", "allgatherv", "reducescatter",
    "alltoall",  "alltoallv", "gather",    "gatherv", "scatter",   "scatterv",   "barrier"};

constexpr std::array<const char*, grNumDataTypes> kTypeNames = {"int8",   "uint8", "int32", "uint32", "int64",
                                                                "uint64", "half",  "float", "double", "bfloat16"};

constexpr std::array<const char*, grNumOps> kOpNames = {"sum", "prod", "max", "min", "avg"};

template <typename E, size_t N>
std::optional<E> ByName(const std::array<const char*, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<E>(i);
  }
  return std::nullopt;
}

}  // namespace

const char* CollName(Coll coll) { return kCollNames[static_cast<int>(coll)]; }
std::optional<Coll> CollByName(std::string_view name) { return ByName<Coll>(kCollNames, name); }

std::vector<Coll> AllColls() {
  std::vector<Coll> colls;
  for (int i = 0; i < kNumColls; ++i) colls.push_back(static_cast<Coll>(i));
  return colls;
}

bool IsReducing(Coll coll) { return coll == Coll::kAllreduce || coll == Coll::kReduce || coll == Coll::kReducescatter; }

bool IsRooted(Coll coll) {
  switch (coll) {
    case Coll::kBcast:
    case Coll::kBroadcast:
    case Coll::kReduce:
    case Coll::kGather:
    case Coll::kGatherv:
    case Coll::kScatter:
    case Coll::kScatterv: return true;
    default: return false;
  }
}

const char* TypeName(grDataType_t type) { return kTypeNames[static_cast<int>(type)]; }
std::optional<grDataType_t> TypeByName(std::string_view name) { return ByName<grDataType_t>(kTypeNames, name); }

std::vector<grDataType_t> AllTypes() {
  std::vector<grDataType_t> types;
  for (int i = 0; i < grNumDataTypes; ++i) types.push_back(static_cast<grDataType_t>(i));
  return types;
}

size_t TypeBytes(grDataType_t type) {
  switch (type) {
    case grInt8:
    case grUint8: return 1;
    case grFloat16:
    case grBfloat16: return 2;
    case grInt32:
    case grUint32:
    case grFloat32: return 4;
    default: return 8;
  }
}

const char* OpName(grRedOp_t op) { return kOpNames[static_cast<int>(op)]; }
std::optional<grRedOp_t> OpByName(std::string_view name) { return ByName<grRedOp_t>(kOpNames, name); }

std::vector<grRedOp_t> AllOps() { return {grSum, grProd, grMin, grMax, grAvg}; }

std::vector<size_t> AllSizes() { return {0, 1, 7, 1023, 4096 + 3, (size_t{1} << 20) + 5, size_t{16} << 20}; }
std::vector<size_t> AllOffsets() { return {0, 4, 8, 12}; }

const char* AlgoName(Algo algo) {
  switch (algo) {
    case Algo::kAuto: return "auto";
    case Algo::kRing: return "ring";
    case Algo::kTree: return "tree";
    case Algo::kOneShot: return "oneshot";
    case Algo::kTwoShot: return "twoshot";
  }
  return "?";
}

const char* ProtoName(Proto proto) {
  switch (proto) {
    case Proto::kAuto: return "auto";
    case Proto::kLL: return "ll";
    case Proto::kLL128: return "ll128";
    case Proto::kSimple: return "simple";
  }
  return "?";
}

std::optional<Algo> AlgoByName(std::string_view name) {
  for (Algo a : {Algo::kAuto, Algo::kRing, Algo::kTree, Algo::kOneShot, Algo::kTwoShot}) {
    if (name == AlgoName(a)) return a;
  }
  return std::nullopt;
}

std::optional<Proto> ProtoByName(std::string_view name) {
  for (Proto p : {Proto::kAuto, Proto::kLL, Proto::kLL128, Proto::kSimple}) {
    if (name == ProtoName(p)) return p;
  }
  return std::nullopt;
}

namespace {

// The engine's algorithms per collective: ring everywhere, tree and oneshot
// for allreduce (and barrier, a small allreduce), oneshot with simple only
// for allgather and broadcast (point-to-point messages,
// coll/host/oneshot_messages.h), twoshot with simple only for allreduce and
// barrier (coll/host/twoshot_messages.h); none for the point-to-point ones.
bool HasTree(Coll coll) { return coll == Coll::kAllreduce || coll == Coll::kBarrier; }
bool HasOneShotMessages(Coll coll) {
  return coll == Coll::kAllgather || coll == Coll::kBcast || coll == Coll::kBroadcast;
}
bool HasAlgorithm(Coll coll) {
  switch (coll) {
    case Coll::kAllreduce:
    case Coll::kBcast:
    case Coll::kBroadcast:
    case Coll::kReduce:
    case Coll::kAllgather:
    case Coll::kReducescatter:
    case Coll::kBarrier: return true;
    default: return false;
  }
}

}  // namespace

bool ExpectRejected(Coll coll, Algo algo, Proto proto) {
  if (algo == Algo::kTwoShot) {
    return HasTree(coll) ? proto != Proto::kAuto && proto != Proto::kSimple : HasAlgorithm(coll);
  }
  if (algo == Algo::kOneShot && HasOneShotMessages(coll)) return proto != Proto::kAuto && proto != Proto::kSimple;
  return HasAlgorithm(coll) && (algo == Algo::kTree || algo == Algo::kOneShot) && !HasTree(coll);
}

const char* RejectingVariable(Coll coll, Algo algo, Proto proto) {
  return ExpectRejected(coll, algo, proto) ? "GPURUN_ALGO" : "GPURUN_PROTO";
}

namespace {
bool GpuServes(Coll coll) {
  return coll == Coll::kAllreduce || coll == Coll::kBcast || coll == Coll::kBroadcast || coll == Coll::kReduce ||
         coll == Coll::kAllgather || coll == Coll::kReducescatter;
}
}  // namespace

std::vector<Coll> GpuRingColls() {
  std::vector<Coll> colls;
  for (Coll c : AllColls()) {
    if (GpuServes(c)) colls.push_back(c);
  }
  return colls;
}

bool IsP2pColl(Coll coll) { return !HasAlgorithm(coll); }

std::vector<Coll> P2pColls() {
  std::vector<Coll> colls;
  for (Coll c : AllColls()) {
    if (IsP2pColl(c)) colls.push_back(c);
  }
  return colls;
}

bool ExpectRejectedOnDevice(Coll coll, Algo algo, Proto proto) {
  if (IsP2pColl(coll)) return false;  // device point-to-point: no algorithm to restrict
  if (!GpuServes(coll)) return ExpectRejected(coll, algo, proto);
  // The ring runs LL, LL128 and Simple (LL128 where its hops are NVLink
  // through CUDA IPC, as on the GPU machine the device tests run on; through
  // host memory it is rejected, which the GPU tuner's unit tests check).
  const bool ring = (algo == Algo::kAuto || algo == Algo::kRing) &&
                    (proto == Proto::kAuto || proto == Proto::kSimple || proto == Proto::kLL || proto == Proto::kLL128);
  // Allreduce also runs one-shot and two-shot over LL lines (calls up to
  // GPURUN_GPU_ONESHOT_BYTES) and the double binary tree over all three.
  const bool oneshot = coll == Coll::kAllreduce &&
                       (algo == Algo::kAuto || algo == Algo::kOneShot || algo == Algo::kTwoShot) &&
                       (proto == Proto::kAuto || proto == Proto::kLL);
  const bool tree = coll == Coll::kAllreduce && algo == Algo::kTree &&
                    (proto == Proto::kAuto || proto == Proto::kSimple || proto == Proto::kLL || proto == Proto::kLL128);
  return !ring && !oneshot && !tree;
}

const char* RejectingVariableOnDevice(Coll coll, Algo algo, Proto proto) {
  if (!GpuServes(coll)) return RejectingVariable(coll, algo, proto);
  const bool algo_exists =
      algo == Algo::kAuto || algo == Algo::kRing ||
      (coll == Coll::kAllreduce && (algo == Algo::kOneShot || algo == Algo::kTwoShot || algo == Algo::kTree));
  return algo_exists ? "GPURUN_PROTO" : "GPURUN_ALGO";
}

size_t VCount(size_t c, int rank) {
  if (rank % 4 == 3) return 0;
  return rank % 2 == 1 ? c / 2 : c;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace gpurun::matrix
