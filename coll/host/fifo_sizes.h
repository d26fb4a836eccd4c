// FIFO sizes of the host executor's connectors, per protocol. NCCL's
// defaults (wire_format.h: LL 512 KiB, LL128 4.7 MB, Simple 4 MiB) are sized
// for GPU bandwidth and would cost up to ~9 MiB per edge here, times rings,
// trees and channels; on the host a step of a few tens of KiB already hides
// the per-step handshake (an estimate: ~0.1-0.3 us against ~5 us to copy
// 64 KiB at ~12 GB/s), so:
//   LL      64 KiB: 8 KiB steps, 4 KiB of data each (a chunk = one step);
//   LL128  256 KiB: 32 KiB steps, 30 KiB of data (16 LL128 grains);
//   Simple 512 KiB: 64 KiB steps; ring AllReduce chunks of 4 steps = 256 KiB.
// Memory (posix_fallocate reserves it at setup): a ring group holds one FIFO
// per rank, a tree group six (2 trees x parent + 2 children, used or not), a
// one-shot group n - 1 (one per peer), so per channel and rank 832 KiB for
// the ring, 4.9 MiB for the tree and (n - 1) x 832 KiB for oneshot with all
// three protocols in use; groups are made only for the (algorithm, protocol,
// channel) triples that calls actually use.
#ifndef GPURUN_COLL_HOST_FIFO_SIZES_H_
#define GPURUN_COLL_HOST_FIFO_SIZES_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

inline constexpr uint64_t kHostLLBufferBytes = 64 * 1024;
inline constexpr uint64_t kHostLL128BufferBytes = 256 * 1024;
inline constexpr uint64_t kHostSimpleBufferBytes = 512 * 1024;

constexpr uint64_t HostBufferBytes(Protocol proto) {
  switch (proto) {
    case Protocol::kLL: return kHostLLBufferBytes;
    case Protocol::kLL128: return kHostLL128BufferBytes;
    case Protocol::kSimple: return kHostSimpleBufferBytes;
  }
  return kHostSimpleBufferBytes;
}
static_assert(IsValidBufferBytes(Protocol::kLL, kHostLLBufferBytes));
static_assert(IsValidBufferBytes(Protocol::kLL128, kHostLL128BufferBytes));
static_assert(IsValidBufferBytes(Protocol::kSimple, kHostSimpleBufferBytes));

// The most data bytes one step of any protocol carries (scratch sizing).
inline constexpr uint64_t kHostMaxStepDataBytes = StepDataBytes(Protocol::kSimple, kHostSimpleBufferBytes);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_FIFO_SIZES_H_
