// Shared copies of large CMA rendezvous payloads (see shm_shared_copy.h).
#include "p2p/shm/shm_shared_copy.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <limits>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "p2p/shm/shm_cma.h"
#include "p2p/shm/shm_outbound.h"
#include "p2p/shm/shm_rendezvous.h"
#include "runtime/base/log.h"

namespace gpurun::p2p::shm {
namespace {

constexpr uint32_t kAllSlots = (1u << kShareSlots) - 1;

std::string RankText(const ShmPeer& peer) { return "rank " + std::to_string(peer.world_rank); }

uint64_t ChunkOffset(uint64_t chunk_bytes, uint32_t chunk) { return uint64_t{chunk} * chunk_bytes; }
// Where `count` chunks from `first` end (the last chunk may be short).
uint64_t RunEnd(uint64_t bytes, uint64_t chunk_bytes, uint32_t first, uint32_t count) {
  return std::min(bytes, ChunkOffset(chunk_bytes, first + count));
}

ShareSlot& SlotOf(ShmPeer& peer, const ShareRecv& share) { return peer.share_in->slots[share.slot]; }

enum class Step { kIdle, kCopied, kFinished };

// Receiver: one step of `share` — copy the next run of chunks (half of those
// left), and once every chunk is taken, see whether the sender is quiet. An
// error: the peer is gone.
StatusOr<Step> StepShare(ShmPeer& peer, ShareRecv& share) {
  ShareSlot& slot = SlotOf(peer, share);
  bool copied = false;
  if (!share.closed) {
    const std::optional<ChunkRun> run = ClaimChunks(slot, share.generation, share.chunks, /*half_of_rest=*/true);
    if (run) {
      share.own += run->count;
      const uint64_t offset = ChunkOffset(share.chunk_bytes, run->first);
      const uint64_t end = RunEnd(share.bytes, share.chunk_bytes, run->first, run->count);
      Status read = CmaRead(peer.liveness.pid(), share.src + offset, share.dst + offset, end - offset);
      if (read.code() == grRemoteError) return read.WithContext(RankText(peer));
      if (!read.ok()) {
        // As ReadOrBounce: unexpected after the probe; the bounce buffers from
        // now on, for the whole payload once the sender has stopped writing.
        GR_LOG(Warn, P2p) << "shm: " << read.ToString() << "; switching " << RankText(peer) << " to bounce buffers";
        peer.cma = false;
        share.bounce = true;
        share.taken = CloseShare(slot, share.generation, share.chunks);
        share.closed = true;
        return Step::kCopied;
      }
      if (run->first + run->count < share.chunks) return Step::kCopied;  // more to take
      copied = true;  // took the last ones: finish now if the sender is quiet
    }
    share.taken = share.chunks;
    share.closed = true;
  }
  const HelperProgress helper = ReadHelper(slot);
  if (!HelperQuiet(helper, share.taken - share.own)) return copied ? Step::kCopied : Step::kIdle;
  share.reread = helper.failed;
  return Step::kFinished;
}

// Receiver: the sender is quiet and the slot free again; completes `share`.
Status FinishShare(ShmPeer& peer, ShareRecv& share) {
  if (share.bounce) {
    AskForFragments(peer, share.send_id, share.dst, share.bytes, std::move(share.done));
    return OkStatus();
  }
  if (share.reread) {
    GR_LOG(Trace, P2p) << "shm: " << RankText(peer) << " failed to write its share; reading it all";
    return ReadOrBounce(peer, share.send_id, share.src, share.dst, share.bytes, share.done);
  }
  GR_LOG(Trace, P2p) << "shm: shared copy of " << share.bytes << " B from " << RankText(peer) << ": "
                     << share.chunks - share.own << " of " << share.chunks << " chunks written by the sender";
  AnswerFin(peer, share.send_id);
  share.done(OkStatus());
  return OkStatus();
}

// Receiver: a step of every shared copy; finishes the complete ones.
StatusOr<int> PumpReceives(ShmPeer& peer) {
  int events = 0;
  Status gone;
  std::vector<ShareRecv> finished;
  for (size_t i = 0; i < peer.shares.size();) {
    StatusOr<Step> step = StepShare(peer, peer.shares[i]);
    if (!step.ok()) {
      gone = step.status();  // the peer fails; its completions run with this
      break;
    }
    if (*step == Step::kIdle) {
      ++i;
      continue;
    }
    ++events;
    if (*step == Step::kCopied) {
      ++i;
      continue;
    }
    peer.slots_busy &= ~(1u << peer.shares[i].slot);
    finished.push_back(std::move(peer.shares[i]));
    peer.shares.erase(peer.shares.begin() + static_cast<std::ptrdiff_t>(i));
  }
  // Completions last: they may start new receives from this peer.
  for (ShareRecv& share : finished) {
    const Status status = FinishShare(peer, share);
    if (gone.ok()) gone = status;
  }
  if (!gone.ok()) return gone;
  return events;
}

// Sender: one chunk of every offer; drops those with nothing left to take.
int PumpOffers(ShmPeer& peer) {
  int events = 0;
  for (auto it = peer.offers.begin(); it != peer.offers.end();) {
    const ShareOffer& offer = *it;
    const auto send = peer.sends.find(offer.send_id);
    ShareSlot& slot = peer.share_out->slots[offer.slot];
    std::optional<uint32_t> chunk;
    if (send != peer.sends.end() && peer.helps) {
      chunk = ClaimChunk(slot, offer.generation, ShareChunks(offer.bytes, offer.chunk_bytes));
    }
    if (!chunk) {
      it = peer.offers.erase(it);
      continue;
    }
    const uint64_t offset = ChunkOffset(offer.chunk_bytes, *chunk);
    const uint64_t end = RunEnd(offer.bytes, offer.chunk_bytes, *chunk, 1);
    const Status wrote = CmaWrite(peer.liveness.pid(), offer.dst + offset, send->second.data + offset, end - offset);
    ++events;
    if (wrote.ok()) {
      ChunkWritten(slot);
      ++peer.chunks_written;
      ++it;
      continue;
    }
    HelperFailed(slot);
    if (wrote.code() != grRemoteError) {
      GR_LOG(Warn, P2p) << "shm: " << wrote.ToString() << "; no longer sharing copies with " << RankText(peer);
      peer.helps = false;
    }
    it = peer.offers.erase(it);
  }
  return events;
}

}  // namespace

bool StartSharedRead(ShmPeer& peer, const RtsPayload& rts, void* dst, uint64_t bytes, Completion& done) {
  const uint64_t chunk = peer.share_chunk;
  if (chunk == 0 || peer.share_in == nullptr || bytes / 2 < chunk) return false;
  if (bytes / chunk >= std::numeric_limits<uint32_t>::max()) return false;
  const uint32_t free = ~peer.slots_busy & kAllSlots;
  if (free == 0) return false;
  const auto slot = static_cast<uint32_t>(std::countr_zero(free));
  if (++peer.share_generation == 0) peer.share_generation = 1;  // 0 is a closed slot
  OpenShare(peer.share_in->slots[slot], peer.share_generation);
  peer.slots_busy |= 1u << slot;
  auto* out = static_cast<std::byte*>(dst);
  OutboundItem help;
  help.kind = CellKind::kHelp;
  help.offer = ShareOffer{rts.send_id, reinterpret_cast<uint64_t>(out), bytes, chunk, slot, peer.share_generation};
  PostOrQueue(peer, std::move(help));
  ShareRecv share;
  share.send_id = rts.send_id;
  share.src = rts.address;
  share.dst = out;
  share.bytes = bytes;
  share.chunk_bytes = chunk;
  share.slot = slot;
  share.generation = peer.share_generation;
  share.chunks = ShareChunks(bytes, chunk);
  share.done = std::move(done);
  peer.shares.push_back(std::move(share));
  return true;
}

void HandleHelp(ShmPeer& peer, const ShareOffer& offer) {
  if (!peer.cma || !peer.helps || peer.share_out == nullptr) return;  // the receiver copies it all
  // Alive through the pidfd now, and the wire's liveness check (about once a
  // millisecond while the send waits) clears the offers of a peer that exits
  // later: a pid reused after the receiver's exit is never written. (A check
  // before every chunk cost a system call per 128 KiB write.)
  if (!peer.liveness.Alive()) return;
  const auto send = peer.sends.find(offer.send_id);
  if (send == peer.sends.end()) return;  // completed, failed or shut down meanwhile
  const bool sane = offer.slot < kShareSlots && offer.generation != 0 && offer.chunk_bytes != 0 &&
                    offer.bytes <= send->second.bytes &&
                    offer.bytes / offer.chunk_bytes < std::numeric_limits<uint32_t>::max();
  if (!sane) {
    GR_LOG(Warn, P2p) << "shm: ignoring a malformed HELP from " << RankText(peer);
    return;
  }
  peer.offers.push_back(offer);
}

StatusOr<int> PumpShares(ShmPeer& peer, bool may_help) {
  int events = peer.offers.empty() || !may_help ? 0 : PumpOffers(peer);
  if (peer.shares.empty()) return events;
  GR_ASSIGN_OR_RETURN(int received, PumpReceives(peer));
  return events + received;
}

void QuiesceShares(ShmPeer& peer, std::chrono::milliseconds limit) {
  for (ShareRecv& share : peer.shares) {
    if (share.closed) continue;
    share.taken = CloseShare(SlotOf(peer, share), share.generation, share.chunks);
    share.closed = true;
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (ShareRecv& share : peer.shares) {
    while (!HelperQuiet(ReadHelper(SlotOf(peer, share)), share.taken - share.own)) {
      if (!peer.liveness.Alive()) return;  // nothing writes any more
      if (std::chrono::steady_clock::now() >= deadline) {
        GR_LOG(Warn, P2p) << "shm: " << RankText(peer) << " still writes a receive buffer at shutdown; giving up after "
                          << limit.count() << " ms";
        return;
      }
      std::this_thread::yield();
    }
  }
}

}  // namespace gpurun::p2p::shm
