// The planner: from one collective call and the chosen (algorithm, protocol,
// channels) to one WorkDesc per channel (two per channel for the tree, one
// per tree), using the pattern math of coll/patterns. Pure: no I/O, no
// allocation; the caller provides the output array.
//
// Channel split (channel_split.h, 16-byte cells): AllReduce, Broadcast and
// Reduce split `count`; AllGather and ReduceScatter split each rank's block
// (`count` per rank) the same way, so channel c moves the same piece of every
// block. Tree: NCCL runs tree 0 on channels 0..C-1 and tree 1 on C..2C-1 with
// the data spread over all 2C; here each channel's part is halved (the first
// half, rounded up to 16 bytes, on tree 0), which is the same data per tree.
#ifndef GPURUN_COLL_PLANNER_PLANNER_H_
#define GPURUN_COLL_PLANNER_PLANNER_H_

#include <cstdint>
#include <span>

#include "coll/coll_types.h"
#include "coll/patterns/chunking.h"
#include "coll/planner/work.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Channels a plan may use (connector groups are indexed by channel).
inline constexpr int kMaxChannels = 16;
// Works one plan produces at most.
inline constexpr int kMaxWorks = 2 * kMaxChannels;

struct PlanInput {
  Func func = Func::kAllReduce;
  DataType type = DataType::kFloat32;
  RedOp op = RedOp::kSum;
  uint64_t count = 0;  // as CollCall::count
  int root_index = 0;  // the root's ring position (broadcast, reduce)
  int nranks = 1;
  int nnodes = 1;      // hosts the ranks are on (the Tree + LL128 chunk rule, chunking.h)
  int ring_index = 0;  // this rank's ring position
  Algo algo = Algo::kRing;
  Protocol proto = Protocol::kSimple;
  int nchannels = 1;
  uint64_t buffer_bytes = 0;        // FIFO size of `proto`'s connectors
  int max_channels = kMaxChannels;  // the executor's limit (host kMaxChannels, GPU kMaxDeviceChannels)
  // At most this many bytes per chunk (rounded down to the protocol's grain,
  // at least one grain); 0: the FIFO's chunk. Smaller chunks give a channel
  // more loops to pipeline when its part is small (the GPU path sets it).
  uint64_t max_chunk_bytes = 0;
  // Ring / tree edges cross hosts (NET connectors, coll/host/net_proxy.h),
  // the same on every rank: ring Simple then moves one step per chunk (see
  // PlanSteps).
  bool net = false;
};

// The chunk geometry of a plan: ChunkStepsFor, except ring Simple with NET
// edges on calls under kNetOneStepMaxBytes (count x element size), {1, 1}.
// Each step on a NET edge is a UCX message, and a chunk of 4 steps that a
// small call fills one of sends 3 empty ones; one step per chunk sends none.
// Measured across 2 virtual nodes (gpurun -n 2 --nodes 2 gpurun-bench
// allreduce, UCX over loopback TCP, ranks under chrt -f so other jobs on the
// 2 cores stay off): forced ring/simple 4 KiB 78 -> 27 us, 32 KiB 87 -> 32
// us, 256 KiB 282 -> 268 us; but from 512 KiB on the 4-step chunk pipelines
// better (3 alternating runs each, {4, 2} against {1, 1}: 512 KiB 469 / 520
// us, 1 MiB 944 / 1075, 2 MiB 1895 / 2085), so larger calls keep it. Prims
// rounds a connection's steps to the chunk when the geometry changes
// between calls (SkipNet sends the skipped steps empty).
inline constexpr uint64_t kNetOneStepMaxBytes = 512 * 1024;
ChunkSteps PlanSteps(const PlanInput& input);

// Whether the host executor has (func, algo): ring for all five functions,
// tree for AllReduce only (NCCL has no tree AllGather / ReduceScatter, and
// its broadcast / reduce are ring-only too), oneshot for AllReduce,
// AllGather and Broadcast, twoshot for AllReduce.
bool HostAlgoExists(Func func, Algo algo);

// Whether the host executor runs (func, algo) as point-to-point messages
// rather than works: oneshot AllGather and Broadcast
// (coll/host/oneshot_messages.h), twoshot AllReduce
// (coll/host/twoshot_messages.h). PlanCollective has nothing to plan for
// them. (Oneshot AllReduce is works over connectors: it reduces on the way.)
constexpr bool HostRunsAsMessages(Func func, Algo algo) {
  return (algo == Algo::kOneShot && (func == Func::kAllGather || func == Func::kBroadcast)) ||
         (algo == Algo::kTwoShot && func == Func::kAllReduce);
}

// Fills `out` (at least kMaxWorks entries) and returns how many works it
// wrote; works with nothing to do (part_count 0) are left out, so a count of
// 0 gives none. InvalidUsage for an algorithm the function lacks or one that
// runs as messages (HostRunsAsMessages); InvalidArgument
// for a bad channel count or a FIFO too small for the protocol.
StatusOr<int> PlanCollective(const PlanInput& input, std::span<WorkDesc> out);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PLANNER_PLANNER_H_
