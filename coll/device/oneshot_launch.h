// The one-shot allreduce on device buffers (coll/gpu/oneshot_peers.h sets it
// up): every rank pushes its whole input into a slot of every peer's scratch
// buffer in the LL line format (coll/wire_format.h: each 8-byte half of a
// 16-byte line holds a 4-byte data word and a 4-byte flag, written by one
// 16-byte store), then reduces, line by line as the flags arrive, every
// rank's input in rank order — so all ranks get the same bits — into its
// receive buffer. The flags replace any barrier: a line is there when both
// its flags equal the call's flag.
//
// Two regions of scratch, each with its own call counter (a per-rank device
// counter, so a CUDA graph replays correctly):
//   large  every call above kOneShotBatchMaxBytes, and every two-shot call:
//          one call a launch, 2 parities;
//   batch  the one-shot calls up to kOneShotBatchMaxBytes: up to
//          kOneShotBatchCalls of them in one launch (a group's calls,
//          coll/gpu/direct_batch.h), kOneShotBatchParities parities.
// A region is [parity 0..P-1][sender 0..nranks-1][slot_bytes]; its call
// number e uses parity e % P with flag OneShotFlag(e).
//
// When a sender may overwrite a slot: with one call a launch (P = 2), the
// slot of call e in call e + 2 only: having finished call e + 1 it has the
// receiver's input of e + 1, which the receiver sent after it finished
// reading call e (its launches run one after another). With up to K calls a
// launch, whose blocks run side by side, a rank starting a launch of calls
// [e, e + K) has finished every call before e, so it holds the receiver's
// input of e - 1; the receiver's launch that sent it began at e - K or
// later, after the receiver finished every call before e - K. The highest
// call e + K - 1 may thus reuse the slot of e + K - 1 - P only if that is
// below e - K: P >= 2K. Ranks may cut a group into launches at different
// calls (coll/gpu/direct_batch.h): the rule holds whatever the cuts.
// Stale lines carry another flag than the call's (flags of one parity
// repeat only after P x kOneShotFlagCycle / 2 calls). The two-shot allreduce
// (twoshot_kernel.cuh) shares the large region, its counter and the flags:
// in its calls too every rank receives a line from every other
// (twoshot_layout.h), so the rule holds across calls of either kind.
#ifndef GPURUN_COLL_DEVICE_ONESHOT_LAUNCH_H_
#define GPURUN_COLL_DEVICE_ONESHOT_LAUNCH_H_

#include <cstdint>
#include <type_traits>

#include "coll/device/dev_launch.h"
#include "coll/device_compat.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

// Most ranks of a one-shot allreduce (one node's GPUs).
inline constexpr int kMaxOneShotRanks = 8;

// Threads per block of the one-shot kernel.
inline constexpr int kOneShotThreads = 512;

// Data bytes of one 16-byte LL line.
inline constexpr uint64_t kOneShotLineData = 8;

// Flags cycle through 1..kOneShotFlagCycle: never 0 (zeroed scratch), and an
// even cycle, so two calls of one parity never share a flag.
inline constexpr uint64_t kOneShotFlagCycle = 0xFFFFFFFEull;

GR_HOST_DEVICE inline uint32_t OneShotFlag(uint64_t call) {
  return static_cast<uint32_t>(call % kOneShotFlagCycle) + 1u;
}
// The parity of call `call` in a region of `parities` (2 or kOneShotBatchParities).
GR_HOST_DEVICE inline uint32_t OneShotParity(uint64_t call, uint32_t parities = 2) {
  return static_cast<uint32_t>(call % parities);
}

// The batch region: calls of up to this many bytes, this many a launch.
inline constexpr uint64_t kOneShotBatchMaxBytes = 64 * 1024;
inline constexpr int kOneShotBatchCalls = 8;
inline constexpr uint32_t kOneShotBatchParities = 2 * kOneShotBatchCalls;

// LL bytes of a slot holding `bytes` of data.
GR_HOST_DEVICE inline uint64_t OneShotSlotBytes(uint64_t bytes) {
  return (bytes + kOneShotLineData - 1) / kOneShotLineData * 16;
}

// One call of a direct launch: its buffers, bytes and blocks.
struct DevDirectCallArgs {
  const void* send;      // the call's send buffer (device)
  void* recv;            // the call's receive buffer (device)
  uint64_t bytes;        // data bytes of the call
  uint32_t first_block;  // the call's blocks: [first_block, first_block + nblocks)
  uint32_t nblocks;
};

struct DevOneShotLaunch {
  DevDirectCallArgs call[kOneShotBatchCalls];  // calls [0, ncalls): the launch's, by call number
  uint8_t* peer_scratch[kMaxOneShotRanks];     // the region in each rank's scratch as this rank maps it (own: null)
  const uint8_t* scratch;                      // the region in this rank's scratch (local)
  uint64_t* call_counter;                      // device: the region's calls so far (the first one's number)
  uint32_t* blocks_done;                       // device: blocks of this launch that finished (reset by the last)
  DevError* error;                             // host-mapped
  const uint32_t* abort;                       // host-mapped: nonzero ends every wait
  uint64_t timeout_ns;                         // 0: no timeout
  uint64_t slot_bytes;                         // LL bytes of one sender's slot in the region (capacity)
  int32_t ncalls;                              // 1..kOneShotBatchCalls; 1 for the two-shot kernel
  uint32_t parities;                           // the region's: 2 or kOneShotBatchParities
  int32_t nranks;
  int32_t rank;
  uint32_t divisor;  // avg: the rank count; 0 otherwise
};

static_assert(std::is_trivially_copyable_v<DevOneShotLaunch>);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_DEVICE_ONESHOT_LAUNCH_H_
