// A single-producer / single-consumer FIFO of cells (shm_cell.h) in shared
// memory: one per (sender → receiver) pair, living in the receiver's segment.
//
// RingControl sits at the start of the ring's memory; `head` (bytes ever
// produced) and `tail` (bytes ever consumed) are on their own cache lines. The
// producer writes a cell, then publishes it with a release store of `head`;
// the consumer reads `head` with acquire, uses the cell in place, then frees
// it with a release store of `tail`. Each side keeps a private copy of the
// other side's counter and re-reads the shared one only when its copy says
// empty (consumer) or full (producer), so an idle ring costs one cached load
// and a message moves with no syscall and no allocation.
//
// Cells never wrap: when one does not fit before the end of the ring, the
// producer pads the end with a kSkip cell and starts over at offset 0.
//
// Thread safety: one thread drives the producer and one the consumer (they
// may be in different processes); the classes themselves are not shared.
#ifndef GPURUN_P2P_SHM_SHM_RING_H_
#define GPURUN_P2P_SHM_SHM_RING_H_

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "p2p/shm/shm_cell.h"

namespace gpurun::p2p::shm {

// The counters sit 128 bytes apart: adjacent-line prefetchers fetch lines in
// pairs, which would otherwise couple the two sides.
struct RingControl {
  alignas(2 * kCacheLine) std::atomic<uint64_t> head;  // written by the producer
  alignas(2 * kCacheLine) std::atomic<uint64_t> tail;  // written by the consumer
};
static_assert(sizeof(RingControl) == 4 * kCacheLine);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Bytes a ring with `capacity` data bytes takes in a segment.
constexpr uint64_t RingBytes(uint64_t capacity) { return sizeof(RingControl) + capacity; }

// Where a ring lives: `base` points at its RingControl (zero-filled memory is
// an empty ring); the data area follows. `capacity` is a power of two >= 256.
struct RingView {
  std::byte* base = nullptr;
  uint64_t capacity = 0;

  RingControl* control() const { return reinterpret_cast<RingControl*>(base); }
  std::byte* data() const { return base + sizeof(RingControl); }
};

class RingProducer {
 public:
  RingProducer() = default;
  explicit RingProducer(RingView ring) : ring_(ring) {}

  // A cell with room for `length` payload bytes, or null when the ring is
  // full. The caller fills it and calls Commit before the next Reserve.
  // `length` must be <= MaxCellPayload(capacity).
  CellHeader* Reserve(uint32_t length) {
    const uint64_t bytes = CellBytes(length);
    const uint64_t offset = head_ & (ring_.capacity - 1);
    const uint64_t to_end = ring_.capacity - offset;
    const uint64_t need = bytes <= to_end ? bytes : to_end + bytes;
    if (ring_.capacity - (head_ - tail_) < need) {
      tail_ = ring_.control()->tail.load(std::memory_order_acquire);
      if (ring_.capacity - (head_ - tail_) < need) return nullptr;
    }
    reserved_ = need;
    if (bytes > to_end) {
      auto* skip = reinterpret_cast<CellHeader*>(ring_.data() + offset);
      skip->kind = CellKind::kSkip;
      skip->length = static_cast<uint32_t>(to_end - sizeof(CellHeader));
      offset_of_cell_ = 0;
    } else {
      offset_of_cell_ = offset;
    }
    auto* cell = reinterpret_cast<CellHeader*>(ring_.data() + offset_of_cell_);
    cell->length = length;
    cell->flags = 0;
    return cell;
  }

  // Publishes the cell from the last Reserve.
  void Commit() {
    head_ += reserved_;
    reserved_ = 0;
    ring_.control()->head.store(head_, std::memory_order_release);
  }

  bool attached() const { return ring_.base != nullptr; }

 private:
  RingView ring_;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;  // last tail seen
  uint64_t reserved_ = 0;
  uint64_t offset_of_cell_ = 0;
};

class RingConsumer {
 public:
  RingConsumer() = default;
  explicit RingConsumer(RingView ring) : ring_(ring) {}

  // The oldest unconsumed cell, or null when the ring is empty. The cell stays
  // valid until Pop.
  const CellHeader* Peek() {
    for (;;) {
      if (tail_ == head_) {
        head_ = ring_.control()->head.load(std::memory_order_acquire);
        if (tail_ == head_) return nullptr;
      }
      const auto* cell = reinterpret_cast<const CellHeader*>(ring_.data() + (tail_ & (ring_.capacity - 1)));
      assert(CellBytes(cell->length) <= ring_.capacity - (tail_ & (ring_.capacity - 1)));
      if (cell->kind != CellKind::kSkip) return cell;
      tail_ += CellBytes(cell->length);
    }
  }

  // Frees the cell Peek returned, making its room available to the producer.
  void Pop() {
    const auto* cell = reinterpret_cast<const CellHeader*>(ring_.data() + (tail_ & (ring_.capacity - 1)));
    tail_ += CellBytes(cell->length);
    ring_.control()->tail.store(tail_, std::memory_order_release);
  }

  bool attached() const { return ring_.base != nullptr; }

 private:
  RingView ring_;
  uint64_t tail_ = 0;
  uint64_t head_ = 0;  // last head seen
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_RING_H_
