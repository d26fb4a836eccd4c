// The collective correctness matrix: its dimensions (collectives, element
// types, reduction ops, sizes, offsets, in-place modes, forced algorithm and
// protocol) with their names, and which forced (algorithm, protocol) the
// engine must reject for which collective. Shared by the rank program
// (coll_matrix) and the gtest driver, so both judge rejections by one table.
//
// Sizes are in bytes of the collective's count argument, rounded down to
// whole elements: count = bytes / element size. The count is the one the API
// takes: allreduce, reduce, bcast/broadcast: the whole buffer; allgather,
// gather, scatter: per rank; reducescatter: per rank (the output block);
// alltoall: per peer block; the v-variants derive each rank's count from it
// (see VCount).
#ifndef GPURUN_TESTS_MATRIX_MATRIX_SPEC_H_
#define GPURUN_TESTS_MATRIX_MATRIX_SPEC_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun::matrix {

enum class Coll {
  kAllreduce,
  kBcast,      // grBcast (one buffer, MPI_Bcast)
  kBroadcast,  // grBroadcast (send and receive buffers, ncclBroadcast)
  kReduce,
  kAllgather,
  kAllgatherv,
  kReducescatter,
  kAlltoall,
  kAlltoallv,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kBarrier,
};
inline constexpr int kNumColls = 14;

const char* CollName(Coll coll);
std::optional<Coll> CollByName(std::string_view name);
std::vector<Coll> AllColls();
bool IsReducing(Coll coll);  // takes a grRedOp_t
bool IsRooted(Coll coll);    // takes a root

const char* TypeName(grDataType_t type);  // int8 uint8 int32 uint32 int64 uint64 half float double bfloat16
std::optional<grDataType_t> TypeByName(std::string_view name);
std::vector<grDataType_t> AllTypes();
size_t TypeBytes(grDataType_t type);

const char* OpName(grRedOp_t op);  // sum prod min max avg
std::optional<grRedOp_t> OpByName(std::string_view name);
std::vector<grRedOp_t> AllOps();

// {0, 1, 7, 1023, 4096+3, 1 MiB+5, 16 MiB} bytes and {0, 4, 8, 12} bytes.
std::vector<size_t> AllSizes();
std::vector<size_t> AllOffsets();

// The (algorithm, protocol) forced through GPURUN_ALGO / GPURUN_PROTO;
// kAuto: the variable is not set and the tuner chooses.
enum class Algo { kAuto, kRing, kTree, kOneShot, kTwoShot };
enum class Proto { kAuto, kLL, kLL128, kSimple };
const char* AlgoName(Algo algo);  // "auto", "ring", "tree", "oneshot", "twoshot"
const char* ProtoName(Proto proto);
std::optional<Algo> AlgoByName(std::string_view name);
std::optional<Proto> ProtoByName(std::string_view name);

// Whether `coll` must fail with grInvalidUsage under the forced pair, for
// every count (0 included) and every rank count (1 included): gpurun.h says a
// restriction that leaves nothing for a call is grInvalidUsage. The host
// engine has ring for every ring/tree collective and tree for allreduce only
// (as NCCL), every protocol for both; barrier is a small allreduce; the
// collectives lowered onto point-to-point (alltoall(v), gather(v),
// scatter(v), allgatherv) have no algorithm to restrict and are never
// rejected.
bool ExpectRejected(Coll coll, Algo algo, Proto proto);

// The same for device buffers: the GPU ring path has ring with the Simple
// protocol only, so any other forced algorithm or protocol of the collectives
// it serves (GpuRingColls) is rejected. The collectives lowered onto
// point-to-point (P2pColls) run over device-buffer point-to-point there and,
// as on host buffers, have no algorithm to restrict: never rejected. The
// barrier keeps the host rules.
bool ExpectRejectedOnDevice(Coll coll, Algo algo, Proto proto);

// The collectives of the GPU ring path on device buffers: allreduce, bcast,
// broadcast, reduce, allgather, reducescatter.
std::vector<Coll> GpuRingColls();
// The collectives lowered onto point-to-point, on host and device buffers
// alike: allgatherv, alltoall, alltoallv, gather, gatherv, scatter, scatterv.
std::vector<Coll> P2pColls();
bool IsP2pColl(Coll coll);

// The variable whose value leaves nothing for `coll` ("GPURUN_ALGO" or
// "GPURUN_PROTO"); only meaningful when ExpectRejected.
const char* RejectingVariable(Coll coll, Algo algo, Proto proto);
const char* RejectingVariableOnDevice(Coll coll, Algo algo, Proto proto);

// Per-rank element counts of the v-variants for base count c: c, c/2, c, 0,
// repeating over ranks (so odd ranks get less and every fourth rank nothing).
size_t VCount(size_t c, int rank);

// Splits "a,b,c" into its non-empty parts.
std::vector<std::string> SplitList(std::string_view text);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_MATRIX_SPEC_H_
