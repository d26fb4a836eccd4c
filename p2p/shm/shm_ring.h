// A single-producer / single-consumer FIFO of cells (shm_cell.h) in shared
// memory: one per (sender → receiver) pair, living in the receiver's segment.
//
// The consumer learns of a cell from the cell itself: the producer writes the
// cell, then sets its header's `ready` byte with a release store; the
// consumer polls the ready byte at its position with acquire, uses the cell
// in place, and frees its room with a release store of `tail` (bytes ever
// consumed; RingControl, on its own cache lines). A small message thus
// reaches the receiver in the one cache line it polls, with no separate
// counter to fetch first. The producer keeps a private copy of `tail` and
// re-reads the shared one only when its copy says full, so a message moves
// with no syscall, no allocation and no shared-counter traffic.
//
// Ready bytes are only trusted where a cell starts, and cells start on any
// cache line, so free room must hold no stale ready byte: before it gives
// room back (publishes `tail`), the consumer clears the ready byte of every
// line of the cells it consumed. It may give room back later than it
// consumes (Advance, then Release): the shm wire releases at its next drain,
// after the receiver's reply has gone out, because a store to a line shared
// with the producer waits for the line and holds back every later store of
// the consumer's core — its reply's among them. Zero-filled memory is an
// empty ring.
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

// `tail` gets two cache lines to itself: adjacent-line prefetchers fetch lines
// in pairs, which would otherwise couple it with the first cells.
struct RingControl {
  alignas(2 * kCacheLine) std::atomic<uint64_t> tail;  // written by the consumer
};
static_assert(sizeof(RingControl) == 2 * kCacheLine);
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

// The ready byte of the cell at `cell` (shared with the other process).
inline std::atomic_ref<uint8_t> ReadyOf(const CellHeader* cell) {
  return std::atomic_ref<uint8_t>(const_cast<CellHeader*>(cell)->ready);
}

class RingProducer {
 public:
  RingProducer() = default;
  explicit RingProducer(RingView ring) : ring_(ring) {}

  // A cell with room for `length` payload bytes, or null when the ring is
  // full. The caller fills it (all but `ready`) and calls Commit before the
  // next Reserve. `length` must be <= MaxCellPayload(capacity).
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
    skip_ = nullptr;
    uint64_t at = offset;
    if (bytes > to_end) {
      skip_ = reinterpret_cast<CellHeader*>(ring_.data() + offset);
      skip_->kind = CellKind::kSkip;
      skip_->length = static_cast<uint32_t>(to_end - sizeof(CellHeader));
      at = 0;
    }
    cell_ = reinterpret_cast<CellHeader*>(ring_.data() + at);
    cell_->length = length;
    cell_->flags = 0;
    return cell_;
  }

  // Publishes the cell from the last Reserve (and the skip before it, after
  // the cell, so that the consumer never follows a skip to an unwritten cell).
  void Commit() {
    ReadyOf(cell_).store(1, std::memory_order_release);
    if (skip_ != nullptr) ReadyOf(skip_).store(1, std::memory_order_release);
    head_ += reserved_;
    reserved_ = 0;
  }

  bool attached() const { return ring_.base != nullptr; }

 private:
  RingView ring_;
  uint64_t head_ = 0;  // bytes ever produced
  uint64_t tail_ = 0;  // last tail seen
  uint64_t reserved_ = 0;
  CellHeader* cell_ = nullptr;
  CellHeader* skip_ = nullptr;
};

class RingConsumer {
 public:
  RingConsumer() = default;
  explicit RingConsumer(RingView ring) : ring_(ring) {}

  // The oldest unconsumed cell, or null when the ring is empty. The cell stays
  // valid until Pop.
  const CellHeader* Peek() {
    for (;;) {
      // Consumed all the way round: what lies ahead is the cells not given
      // back yet, whose ready bytes are still set.
      if (tail_ - released_ == ring_.capacity) Release();
      auto* cell = reinterpret_cast<CellHeader*>(ring_.data() + (tail_ & (ring_.capacity - 1)));
      if (ReadyOf(cell).load(std::memory_order_acquire) == 0) return nullptr;
      assert(CellBytes(cell->length) <= ring_.capacity - (tail_ & (ring_.capacity - 1)));
      if (cell->kind != CellKind::kSkip) return cell;
      tail_ += CellBytes(cell->length);  // its room goes back with the next Release
    }
  }

  // Consumes the cell Peek returned; its room goes back to the producer at
  // the next Release (until then the cell's memory stays as it is).
  void Advance() {
    const auto* cell = reinterpret_cast<const CellHeader*>(ring_.data() + (tail_ & (ring_.capacity - 1)));
    tail_ += CellBytes(cell->length);
  }

  // Gives the room of every cell consumed so far back to the producer.
  void Release() {
    if (released_ == tail_) return;
    for (; released_ != tail_; released_ += kCacheLine) {
      ReadyOf(reinterpret_cast<const CellHeader*>(ring_.data() + (released_ & (ring_.capacity - 1))))
          .store(0, std::memory_order_relaxed);  // ordered before the release store of tail
    }
    ring_.control()->tail.store(tail_, std::memory_order_release);
  }

  // Bytes consumed but not yet given back.
  uint64_t unreleased() const { return tail_ - released_; }

  // Advance and Release.
  void Pop() {
    Advance();
    Release();
  }

  bool attached() const { return ring_.base != nullptr; }

 private:
  RingView ring_;
  uint64_t tail_ = 0;      // bytes ever consumed (skips included)
  uint64_t released_ = 0;  // bytes given back to the producer: tail as last published
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_RING_H_
