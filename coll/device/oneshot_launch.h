// The one-shot allreduce on device buffers (coll/gpu/oneshot_peers.h sets it
// up): every rank pushes its whole input into a slot of every peer's scratch
// buffer in the LL line format (coll/wire_format.h: each 8-byte half of a
// 16-byte line holds a 4-byte data word and a 4-byte flag, written by one
// 16-byte store), then reduces, line by line as the flags arrive, every
// rank's input in rank order — so all ranks get the same bits — into its
// receive buffer. The flags replace any barrier: a line is there when both
// its flags equal the call's flag.
//
// Scratch of each rank: [parity 0, 1][sender 0..nranks-1][slot_bytes]. Call
// number e (a per-rank device counter, so a CUDA graph replays correctly)
// uses parity e % 2 with flag OneShotFlag(e). A sender may overwrite the
// slot of call e in call e + 2 only: having finished call e + 1 it has the
// receiver's input of e + 1, which the receiver sent after it finished
// reading call e (its calls run one after another). Stale lines of e carry
// another flag than e + 2's. The two-shot allreduce (twoshot_kernel.cuh)
// shares the scratch, the counter and the flags: in its calls too every
// rank receives a line from every other (twoshot_layout.h), so the rule
// holds across calls of either kind.
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
GR_HOST_DEVICE inline uint32_t OneShotParity(uint64_t call) { return static_cast<uint32_t>(call & 1u); }

// LL bytes of a slot holding `bytes` of data.
GR_HOST_DEVICE inline uint64_t OneShotSlotBytes(uint64_t bytes) {
  return (bytes + kOneShotLineData - 1) / kOneShotLineData * 16;
}

struct DevOneShotLaunch {
  const void* send;                         // the call's send buffer (device)
  void* recv;                               // the call's receive buffer (device)
  uint8_t* peer_scratch[kMaxOneShotRanks];  // each rank's scratch as this rank maps it (own: null)
  const uint8_t* scratch;                   // this rank's scratch (local)
  uint64_t* calls;                          // device: this rank's calls so far (the next one's number)
  uint32_t* blocks_done;                    // device: blocks of this launch that finished (reset by the last)
  DevError* error;                          // host-mapped
  const uint32_t* abort;                    // host-mapped: nonzero ends every wait
  uint64_t timeout_ns;                      // 0: no timeout
  uint64_t bytes;                           // data bytes of the call
  uint64_t slot_bytes;                      // LL bytes of one sender's slot (capacity)
  int32_t nranks;
  int32_t rank;
  uint32_t divisor;  // avg: the rank count; 0 otherwise
};

static_assert(std::is_trivially_copyable_v<DevOneShotLaunch>);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_DEVICE_ONESHOT_LAUNCH_H_
