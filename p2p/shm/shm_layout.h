// Layout of one rank's shared-memory segment: a header page, then one inbound
// ring (shm_ring.h) per peer the rank reaches, in the order of its `reach`
// list, each behind the share slots of that peer's rendezvous (shm_share.h).
// The receiver owns the segment; each sender maps it and produces into its
// own ring. Every ring's area starts on a page boundary.
//
//   offset 0                 SegmentHeader (magic, version, ring count/size)
//   kHeaderBytes + i*stride  area i: ShareArea, RingControl, then
//                            `ring_capacity` bytes of ring i
//
// The header also serves as the "known word" for the CMA probe: a peer reads
// `magic` through process_vm_readv at the owner's mapping address.
#ifndef GPURUN_P2P_SHM_SHM_LAYOUT_H_
#define GPURUN_P2P_SHM_SHM_LAYOUT_H_

#include <cstddef>
#include <cstdint>

#include "p2p/shm/shm_ring.h"
#include "p2p/shm/shm_share.h"

namespace gpurun::p2p::shm {

inline constexpr uint64_t kSegmentMagic = 0x67707572756e5348ull;  // "gpurunSH"
inline constexpr uint32_t kSegmentVersion = 3;                    // 3: share slots before every ring
inline constexpr uint64_t kPageBytes = 4096;
inline constexpr uint64_t kHeaderBytes = kPageBytes;

// Ring sizes: at least kMinRingCapacity, grown so that an eager cell is at
// most a quarter of the ring, and never above kMaxRingCapacity (where the
// eager limit is clamped instead).
inline constexpr uint64_t kMinRingCapacity = uint64_t{128} << 10;
inline constexpr uint64_t kMaxRingCapacity = uint64_t{16} << 20;

struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t num_rings;
  uint64_t ring_capacity;
};
static_assert(sizeof(SegmentHeader) <= kHeaderBytes);

constexpr uint64_t RoundUpPow2(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// The ring capacity a receiver picks for an eager limit of `eager_limit`.
constexpr uint64_t RingCapacityFor(uint64_t eager_limit) {
  const uint64_t want = RoundUpPow2(4 * CellBytes(eager_limit));
  return want < kMinRingCapacity ? kMinRingCapacity : (want > kMaxRingCapacity ? kMaxRingCapacity : want);
}

// Bytes of one peer's area: its share slots and its ring.
constexpr uint64_t AreaBytes(uint64_t capacity) { return sizeof(ShareArea) + RingBytes(capacity); }

constexpr uint64_t RingStride(uint64_t capacity) {
  return (AreaBytes(capacity) + kPageBytes - 1) / kPageBytes * kPageBytes;
}

constexpr uint64_t SegmentBytes(uint32_t num_rings, uint64_t capacity) {
  return kHeaderBytes + num_rings * RingStride(capacity);
}

constexpr uint64_t AreaOffset(uint32_t index, uint64_t capacity) { return kHeaderBytes + index * RingStride(capacity); }

inline ShareArea* ShareAt(std::byte* segment, uint32_t index, uint64_t capacity) {
  return reinterpret_cast<ShareArea*>(segment + AreaOffset(index, capacity));
}

inline RingView RingAt(std::byte* segment, uint32_t index, uint64_t capacity) {
  return RingView{segment + AreaOffset(index, capacity) + sizeof(ShareArea), capacity};
}

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_LAYOUT_H_
