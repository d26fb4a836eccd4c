// Wire formats of the three protocols and the FIFO geometry they share
// (digest §5.5, §6.2-6.6; checklist items 32-40 and 45). One header for host
// and device code: a GPU kernel and a host executor thread write the same
// bytes, so either can sit at each end of a connection.
//
// Every connection is a FIFO of kFifoSteps slots ("steps") of
// buffer_bytes / kFifoSteps bytes; step s uses slot s % kFifoSteps. The
// sender may fill step s once the receiver has released step s - kFifoSteps
// (its head counter, a StepCounter, is > s - kFifoSteps). How the receiver
// learns that step s is there depends on the protocol:
//
//   LL      16-byte lines {data_lo, flag, data_hi, flag}: 8 data bytes per
//           line, each 4-byte data word followed by its flag = step + 1. The
//           flags travel with the data, so no fence is needed: the GPU writes
//           a line with one 16-byte store, the host with two aligned 8-byte
//           atomic stores; readers check both flags. 50% efficient.
//   LL128   128-byte lines: 15 data words of 8 bytes, then one flag word =
//           step + 1. On the GPU eight lanes store one line, 16 bytes each,
//           and lane 7 puts the flag in its second word; this relies on
//           128-byte stores arriving whole (NVLink, not PCIe: digest §4.3).
//           On the host the flag word is stored last, with release. 93.75%.
//   Simple  no inline metadata: the sender writes the whole step, then
//           publishes its step counter (tail) with release semantics; the
//           receiver acquires the counter before it reads. 100%.
//
// Host memory ordering uses std::atomic_ref on naturally aligned 8-byte
// words (C++20), so a host reader racing a writer is well defined.
#ifndef GPURUN_COLL_WIRE_FORMAT_H_
#define GPURUN_COLL_WIRE_FORMAT_H_

#include <atomic>
#include <bit>
#include <cstdint>

#include "coll/coll_types.h"
#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

// ---- FIFO geometry (digest §5.5 table, §6.3; NCCL defaults) ----

// NCCL_STEPS: slots per connection FIFO.
inline constexpr int kFifoSteps = 8;

// Default FIFO sizes (digest §5.5; overridable like NCCL_LL_BUFFSIZE,
// NCCL_LL128_BUFFSIZE, NCCL_BUFFSIZE):
// LL: 8 lines/thread x 512 threads x 8 steps x 16 B.
inline constexpr uint64_t kLLDefaultBufferBytes = 524288;
// LL128: 120 words/thread x 640 threads x 8 steps x 8 B.
inline constexpr uint64_t kLL128DefaultBufferBytes = 4915200;
// Simple: 1 << 22.
inline constexpr uint64_t kSimpleDefaultBufferBytes = 4194304;

// A protocol's line: `line_bytes` on the wire carry `line_data_bytes` of data.
// Simple has no lines; its 16-byte unit only keeps steps 16-byte aligned.
struct ProtoGeometry {
  uint64_t line_bytes;
  uint64_t line_data_bytes;
  uint64_t default_buffer_bytes;
};

GR_HOST_DEVICE constexpr ProtoGeometry GeometryOf(Protocol proto) {
  switch (proto) {
    case Protocol::kLL: return ProtoGeometry{16, 8, kLLDefaultBufferBytes};
    case Protocol::kLL128: return ProtoGeometry{128, 120, kLL128DefaultBufferBytes};
    default: return ProtoGeometry{16, 16, kSimpleDefaultBufferBytes};
  }
}

// Wire bytes of one FIFO slot.
GR_HOST_DEVICE constexpr uint64_t StepBytes(uint64_t buffer_bytes) { return buffer_bytes / kFifoSteps; }
// Lines in one slot.
GR_HOST_DEVICE constexpr uint64_t StepLines(Protocol proto, uint64_t buffer_bytes) {
  return StepBytes(buffer_bytes) / GeometryOf(proto).line_bytes;
}
// Usable data bytes per step (digest checklist 45: Simple buff/8, LL buff/8/2,
// LL128 (buff/8)*15/16): 524288, 32768 and 576000 with the defaults.
GR_HOST_DEVICE constexpr uint64_t StepDataBytes(Protocol proto, uint64_t buffer_bytes) {
  return StepLines(proto, buffer_bytes) * GeometryOf(proto).line_data_bytes;
}
// Lines needed for `bytes` of data (the last one may be partly filled).
GR_HOST_DEVICE constexpr uint64_t LinesForBytes(Protocol proto, uint64_t bytes) {
  return DivUp(bytes, GeometryOf(proto).line_data_bytes);
}
// Whether a FIFO size splits into kFifoSteps slots of whole lines.
GR_HOST_DEVICE constexpr bool IsValidBufferBytes(Protocol proto, uint64_t buffer_bytes) {
  return buffer_bytes > 0 && buffer_bytes % (kFifoSteps * GeometryOf(proto).line_bytes) == 0;
}
// Byte offset of step `step`'s slot in the FIFO.
GR_HOST_DEVICE constexpr uint64_t SlotOffset(uint64_t step, uint64_t buffer_bytes) {
  return (step % kFifoSteps) * StepBytes(buffer_bytes);
}
// A NET connection (the GPU path across hosts, coll/host/gpu_net_proxy.h):
// the sending kernel records each step's wire bytes in a host-memory word
// per slot before it posts tail, with this bit set for an LL step (its
// lines go to the receiver's LL FIFO, Simple's to its Simple FIFO).
inline constexpr uint32_t kNetStepLL = 0x80000000u;

// Whether the sender may fill step `step`, given the receiver's head (the
// number of steps it has released): NCCL waits while head + NCCL_STEPS < step + 1.
GR_HOST_DEVICE constexpr bool SlotFree(uint64_t step, uint64_t head) { return step < head + kFifoSteps; }

// ---- Host side: the atomics behind every host read and write ----
namespace wire_host {
static_assert(std::endian::native == std::endian::little, "LL packs (data, flag) pairs little-endian");
static_assert(std::atomic_ref<uint64_t>::is_always_lock_free);
static_assert(std::atomic_ref<uint64_t>::required_alignment <= 8);

inline void Store(uint64_t* word, uint64_t value, std::memory_order order) {
  std::atomic_ref<uint64_t>(*word).store(value, order);
}
// atomic_ref<const T> is not C++20; loading through it does not write.
inline uint64_t Load(const uint64_t* word, std::memory_order order) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(word)).load(order);
}
}  // namespace wire_host

// ---- LL (digest §6.4, checklist 34-35) ----

// Flag of step `step`: never 0 for the first 2^32 - 1 steps, then it wraps.
GR_HOST_DEVICE constexpr uint32_t LLFlag(uint64_t step) { return static_cast<uint32_t>(step + 1); }

// NCCL_LL_CLEAN_MASK. A step may fill only part of its slot, so lines keep
// older flags; after 2^32 steps such a flag would match again. A sender at a
// step with LLNeedsClean(step) true (8 consecutive steps every 2^31, one per
// slot) rewrites every line of the slot with the current flag and zero data
// beyond what it sends, so every flag in the FIFO is less than 2^31 + 8 steps
// old and cannot match a later step.
inline constexpr uint64_t kLLCleanMask = 0x7ffffff8;
GR_HOST_DEVICE constexpr bool LLNeedsClean(uint64_t step) { return (step & kLLCleanMask) == kLLCleanMask; }

// Half of an LL line as one 8-byte word: data in the low half, flag above.
GR_HOST_DEVICE constexpr uint64_t LLHalf(uint32_t data, uint32_t flag) {
  return static_cast<uint64_t>(data) | static_cast<uint64_t>(flag) << 32;
}

union alignas(16) LLLine {
  uint32_t word[4];  // data_lo, flag, data_hi, flag
  uint64_t half[2];  // LLHalf(data_lo, flag), LLHalf(data_hi, flag)

  // Publishes 8 data bytes for the step whose flag is `flag`.
  GR_HOST_DEVICE void write(uint64_t data, uint32_t flag) {
    const auto lo = static_cast<uint32_t>(data);
    const auto hi = static_cast<uint32_t>(data >> 32);
#if GR_DEVICE_CODE
    asm volatile("st.volatile.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(word), "r"(lo), "r"(flag), "r"(hi), "r"(flag)
                 : "memory");
#else
    wire_host::Store(&half[0], LLHalf(lo, flag), std::memory_order_release);
    wire_host::Store(&half[1], LLHalf(hi, flag), std::memory_order_release);
#endif
  }

  // One poll: true, with the data, when both halves carry `flag`.
  GR_HOST_DEVICE bool read(uint32_t flag, uint64_t* data) const {
#if GR_DEVICE_CODE
    uint32_t lo, flag_lo, hi, flag_hi;
    asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(lo), "=r"(flag_lo), "=r"(hi), "=r"(flag_hi)
                 : "l"(word)
                 : "memory");
#else
    const uint64_t a = wire_host::Load(&half[0], std::memory_order_acquire);
    const uint64_t b = wire_host::Load(&half[1], std::memory_order_acquire);
    const auto lo = static_cast<uint32_t>(a), flag_lo = static_cast<uint32_t>(a >> 32);
    const auto hi = static_cast<uint32_t>(b), flag_hi = static_cast<uint32_t>(b >> 32);
#endif
    if (flag_lo != flag || flag_hi != flag) return false;
    *data = static_cast<uint64_t>(lo) | static_cast<uint64_t>(hi) << 32;
    return true;
  }

  // Zero data and flags. Flag 0 is step 2^32 - 1's; the clean rule has
  // rewritten every line long before.
  GR_HOST_DEVICE void clear() { write(0, 0); }
};
static_assert(sizeof(LLLine) == 16);
static_assert(alignof(LLLine) == 16);

// ---- LL128 (digest §6.5, checklist 37) ----

inline constexpr int kLL128LineWords = 16;
inline constexpr int kLL128DataWords = 15;
inline constexpr int kLL128FlagWord = 15;
inline constexpr int kLL128LanesPerLine = 8;  // GPU lanes that store one line
inline constexpr int kLL128FlagLane = 7;      // NCCL flagThread: tid % 8 == 7

// Flag of step `step` (64 bits: it does not wrap).
GR_HOST_DEVICE constexpr uint64_t LL128Flag(uint64_t step) { return step + 1; }
// First of the two words lane `lane` (0..7) stores; lane 7's second word is
// the flag, so data word i sits at word i for every i < 15.
GR_HOST_DEVICE constexpr int LL128LaneWord(int lane) { return 2 * lane; }

struct alignas(128) LL128Line {
  uint64_t word[kLL128LineWords];

  // Host: stores the 15 data words, then the flag with release.
  void write(const uint64_t* data, uint64_t flag) {
    for (int i = 0; i < kLL128DataWords; ++i) wire_host::Store(&word[i], data[i], std::memory_order_relaxed);
    wire_host::Store(&word[kLL128FlagWord], flag, std::memory_order_release);
  }
  // Host, one poll: true, with the 15 data words, when the flag is `flag`.
  bool read(uint64_t flag, uint64_t* data) const {
    if (wire_host::Load(&word[kLL128FlagWord], std::memory_order_acquire) != flag) return false;
    for (int i = 0; i < kLL128DataWords; ++i) data[i] = wire_host::Load(&word[i], std::memory_order_relaxed);
    return true;
  }
  // Host: zero data and flag (LL128 flags are never 0).
  void clear() {
    for (auto& w : word) wire_host::Store(&w, 0, std::memory_order_relaxed);
  }

#if GR_CUDA_COMPILE
  // Device: lane `lane` of the 8-lane group stores its 16 bytes in one store;
  // `second` is data (lanes 0-6) or the flag (lane 7).
  __device__ void writeLane(int lane, uint64_t first, uint64_t second) {
    asm volatile("st.volatile.v2.u64 [%0], {%1, %2};" ::"l"(word + LL128LaneWord(lane)), "l"(first), "l"(second)
                 : "memory");
  }
#endif
};
static_assert(sizeof(LL128Line) == 128);
static_assert(alignof(LL128Line) == 128);

// ---- Simple (digest §6.6, checklist 40) and the head credit of all three ----

// A step counter on its own 128-byte line (NCCL pads head and tail to
// CACHE_LINE_SIZE = 128). As tail it counts the steps a sender published, as
// head the steps a receiver released.
struct alignas(128) StepCounter {
  uint64_t value;

  // Release: every store before it is visible to whoever acquires `step`
  // (GPU: fence.acq_rel.sys, then st.relaxed.sys, as NCCL's postPeer).
  GR_HOST_DEVICE void post(uint64_t step) {
#if GR_DEVICE_CODE
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(&value), "l"(step) : "memory");
#else
    wire_host::Store(&value, step, std::memory_order_release);
#endif
  }
  // Acquire: what the poster wrote before post() is visible after this.
  GR_HOST_DEVICE uint64_t load() const {
#if GR_DEVICE_CODE
    uint64_t step;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(step) : "l"(&value) : "memory");
    return step;
#else
    return wire_host::Load(&value, std::memory_order_acquire);
#endif
  }
  GR_HOST_DEVICE void clear() { post(0); }
};
static_assert(sizeof(StepCounter) == 128);
static_assert(alignof(StepCounter) == 128);

// ---- Protocol policy types (STYLE.md §4): kernels and executors take one ----

struct ProtoLL {
  static constexpr Protocol kId = Protocol::kLL;
  using Line = LLLine;
};
struct ProtoLL128 {
  static constexpr Protocol kId = Protocol::kLL128;
  using Line = LL128Line;
};
struct ProtoSimple {
  static constexpr Protocol kId = Protocol::kSimple;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_WIRE_FORMAT_H_
