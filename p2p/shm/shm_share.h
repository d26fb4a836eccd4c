// The shared copy of a large CMA rendezvous: the receiver and the sender both
// copy, each a chunk at a time, from a counter in shared memory.
//
// A receiver that reads a large payload with process_vm_readv alone copies at
// one core's process_vm_readv rate, while a sender blocked in its wait has a
// core doing nothing. So the receiver opens a ShareSlot for the payload and
// sends the sender a HELP cell (ShareOffer); from then on both take chunk
// indices from the slot's `claim` word and copy what they took: the receiver
// with process_vm_readv from the sender's buffer (half of the chunks left at
// a time), the sender with process_vm_writev into the receiver's (one at a
// time). A sender that never sees the offer
// (busy computing, or past its wait) takes nothing, and the receiver copies
// every chunk as before, so the receive never waits for the sender to come
// round; it waits only for a chunk the sender has taken and not finished
// (one chunk's copy), and that wait is a rendezvous in flight, under the
// wire's liveness check.
//
//   claim  generation << 32 | chunks taken so far (by either side)
//   done   chunks the sender finished | kHelperFailed
//
// The generation changes every time the receiver opens the slot, and a claim
// is a compare-and-swap of the whole word, so a sender acting on an old offer
// (one that arrives after its payload is complete and the slot open again)
// takes nothing. Only the sender adds to `done`, and only for a chunk it took
// in the current generation; once the receiver has seen every chunk taken and
// the sender's count at (taken - its own), no write of the sender's is left,
// and the slot may open again. A sender whose write fails sets kHelperFailed
// after it and takes no more: the receiver then reads the whole payload
// again itself (what the sender wrote is the same bytes).
//
// Thread safety: the words are shared between two processes; each function
// is safe against the other process running any of them concurrently.
#ifndef GPURUN_P2P_SHM_SHM_SHARE_H_
#define GPURUN_P2P_SHM_SHM_SHARE_H_

#include <atomic>
#include <cstdint>
#include <optional>

#include "p2p/shm/shm_cell.h"

namespace gpurun::p2p::shm {

// Slots per (sender → receiver) ring: shared copies in flight from one sender
// at once (more wait for a free slot by copying alone).
inline constexpr uint32_t kShareSlots = 4;
inline constexpr uint64_t kHelperFailed = uint64_t{1} << 63;

struct ShareSlot {
  alignas(kCacheLine) std::atomic<uint64_t> claim;
  std::atomic<uint64_t> done;
};
static_assert(sizeof(ShareSlot) == kCacheLine);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// The slots of one ring, in front of its RingControl (shm_layout.h); zero
// memory is closed slots (generation 0 is never opened).
struct ShareArea {
  ShareSlot slots[kShareSlots];
};
static_assert(sizeof(ShareArea) % (2 * kCacheLine) == 0);

// Payload of a kHelp cell: copy chunks of send `send_id` into `dst` (an
// address in the receiver's space) while the slot's generation is `generation`.
struct ShareOffer {
  uint64_t send_id = 0;
  uint64_t dst = 0;
  uint64_t bytes = 0;
  uint64_t chunk_bytes = 0;
  uint32_t slot = 0;
  uint32_t generation = 0;
};

// Chunks of `chunk_bytes` that cover `bytes`.
constexpr uint32_t ShareChunks(uint64_t bytes, uint64_t chunk_bytes) {
  return static_cast<uint32_t>((bytes + chunk_bytes - 1) / chunk_bytes);
}

// Receiver: opens `slot` for a payload under `generation` (non-zero, not the
// slot's last), with nothing taken. The slot must be quiet (see above).
inline void OpenShare(ShareSlot& slot, uint32_t generation) {
  slot.done.store(0, std::memory_order_relaxed);
  slot.claim.store(uint64_t{generation} << 32, std::memory_order_release);
}

// Consecutive chunks taken at once: [first, first + count).
struct ChunkRun {
  uint32_t first = 0;
  uint32_t count = 0;
};

// Takes the next chunks of `chunks`: one (`half_of_rest` false), or half of
// those left, rounded up; nothing once all are taken or the slot has moved
// to another generation. The receiver takes halves (guided self-scheduling):
// alone, it reads a payload of K chunks in about log2(K) reads rather than K;
// with the sender taking single chunks beside it, the two end together.
inline std::optional<ChunkRun> ClaimChunks(ShareSlot& slot, uint32_t generation, uint32_t chunks, bool half_of_rest) {
  if (generation == 0) return std::nullopt;
  uint64_t word = slot.claim.load(std::memory_order_acquire);
  for (;;) {
    const auto taken = static_cast<uint32_t>(word);
    if ((word >> 32) != generation || taken >= chunks) return std::nullopt;
    const uint32_t count = half_of_rest ? (chunks - taken + 1) / 2 : 1;
    if (slot.claim.compare_exchange_weak(word, word + count, std::memory_order_acq_rel, std::memory_order_acquire)) {
      return ChunkRun{taken, count};
    }
  }
}

// One chunk (the sender's way), as an index.
inline std::optional<uint32_t> ClaimChunk(ShareSlot& slot, uint32_t generation, uint32_t chunks) {
  const std::optional<ChunkRun> run = ClaimChunks(slot, generation, chunks, /*half_of_rest=*/false);
  if (!run) return std::nullopt;
  return run->first;
}

// Receiver: takes every chunk not yet taken; returns how many had been taken
// (by both sides) before.
inline uint32_t CloseShare(ShareSlot& slot, uint32_t generation, uint32_t chunks) {
  uint64_t word = slot.claim.load(std::memory_order_acquire);
  while ((word >> 32) == generation && static_cast<uint32_t>(word) < chunks) {
    if (slot.claim.compare_exchange_weak(word, (uint64_t{generation} << 32) | chunks, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
      break;
    }
  }
  return (word >> 32) == generation ? static_cast<uint32_t>(word) : chunks;
}

// Sender: a chunk it took is in the receiver's buffer (release: the receiver
// reads `done` with acquire before it uses the data).
inline void ChunkWritten(ShareSlot& slot) { slot.done.fetch_add(1, std::memory_order_release); }
// Sender: a write failed; it takes no more chunks of this generation.
inline void HelperFailed(ShareSlot& slot) { slot.done.fetch_or(kHelperFailed, std::memory_order_release); }

// Receiver: what the sender has finished.
struct HelperProgress {
  uint32_t written = 0;
  bool failed = false;
};
inline HelperProgress ReadHelper(const ShareSlot& slot) {
  const uint64_t word = slot.done.load(std::memory_order_acquire);
  return HelperProgress{static_cast<uint32_t>(word & ~kHelperFailed), (word & kHelperFailed) != 0};
}

// Receiver: whether the sender, having taken `taken_by_helper` chunks, is
// done touching the buffer (each taken chunk written, or it failed).
inline bool HelperQuiet(const HelperProgress& p, uint32_t taken_by_helper) {
  return p.failed || p.written == taken_by_helper;
}

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_SHARE_H_
