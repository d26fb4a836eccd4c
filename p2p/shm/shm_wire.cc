// ShmWire: sending, progress, failures, shutdown (creation: shm_wire_create.cc).
#include "p2p/shm/shm_wire.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <utility>

#include "p2p/shm/shm_outbound.h"
#include "p2p/shm/shm_shared_copy.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

using shm::CellHeader;
using shm::CellKind;
using shm::ShmPeer;

namespace {
// Cells taken from one ring per Progress call, so one busy sender cannot
// starve the others.
constexpr int kDrainBudget = 64;

// Whether a message goes in one eager cell: up to the eager limit, and the
// engine's flagged control messages (device rendezvous, ~100 bytes) always,
// whatever GPURUN_SHM_EAGER_LIMIT says, as Wire::CarriesDeviceRendezvous promises.
bool SendsEager(const ShmPeer& peer, const MatchHeader& header) {
  return header.bytes <= peer.eager_limit || (header.flags != 0 && header.bytes <= peer.frag_bytes);
}
// Consumed bytes of a ring given back within the same drain rather than the
// next (rings hold at least 128 KiB; shm_layout.h).
constexpr uint64_t kReleaseAtOnce = uint64_t{16} << 10;
// Bytes of a cell prefetched as soon as it is seen (the copy streams the rest).
constexpr uint64_t kPrefetchBytes = 1024;
// Progress calls between looks at the clock for the liveness check.
constexpr uint32_t kCheckEvery = 64;
constexpr auto kCheckInterval = std::chrono::milliseconds(1);
// How long Shutdown waits for a sender's chunk in flight (one chunk's copy:
// tens of microseconds) before it fails a shared-copy receive.
constexpr auto kQuiesceLimit = std::chrono::milliseconds(1000);
}  // namespace

ShmWire::ShmWire(int world_size)
    : peer_index_(static_cast<size_t>(world_size), -1), anchor_(std::make_shared<shm::PayloadAnchor>()) {
  anchor_->host = this;
}

ShmWire::~ShmWire() { Shutdown(InternalError("shm wire destroyed with operations pending")); }

Status ShmWire::Send(int world_peer, const MatchHeader& header, const void* data, Completion done) {
  if (shut_down_) return InvalidUsage("shm wire: Send after Shutdown");
  const int index = PeerIndex(world_peer);
  if (index < 0) return InvalidArgument("shm wire does not reach rank " + std::to_string(world_peer));
  ShmPeer& peer = peers_[index];
  if (peer.failed) return peer.failure;
  if (!done) done = [](const Status&) {};  // later stages call it unchecked
  if (SendsEager(peer, header)) {
    if (peer.backlog.empty() && shm::TryPostEager(peer.out, header, data)) {
      done(OkStatus());
      return OkStatus();
    }
    peer.backlog.push_back(shm::OutboundItem{CellKind::kEager, header, data, {}, {}, std::move(done)});
    return OkStatus();
  }
  shm::StartRendezvousSend(peer, next_send_id_++, header, data, std::move(done));
  return OkStatus();
}

bool ShmWire::TrySend(int world_peer, const MatchHeader& header, const void* data) {
  const int index = PeerIndex(world_peer);
  if (index < 0 || shut_down_) return false;
  ShmPeer& peer = peers_[index];
  if (peer.failed || !SendsEager(peer, header) || !peer.backlog.empty()) return false;
  return shm::TryPostEager(peer.out, header, data);
}

StatusOr<int> ShmWire::Progress() {
  int events = 0;
  bool share_work = false;
  for (size_t i = 0; i < peers_.size() && !shut_down_; ++i) {
    ShmPeer& peer = peers_[i];
    // The room of the cells handled last time goes back now, after whatever
    // reply they caused has been sent (shm_ring.h says why that matters).
    peer.in.Release();
    if (peer.in.Peek() != nullptr) events += DrainInbound(peer, static_cast<int>(i));
    if (peer.HasOutbound() && !shut_down_ && !peer.failed) {
      events += shm::FlushBacklog(peer);
      events += shm::PumpFragments(peer);
    }
    share_work = share_work || peer.HasShareWork();
  }
  if (share_work && !shut_down_) events += PumpShares();
  if (++progress_calls_ % kCheckEvery == 0 && !shut_down_) CheckPeers();
  return events;
}

int ShmWire::PumpShares() {
  // After every drain, so that a receive the drain just shared counts: this
  // rank helps its senders' receivers only while no receive of its own is
  // shared (shm_shared_copy.h, PumpShares).
  const bool may_help = std::none_of(peers_.begin(), peers_.end(), [](const ShmPeer& p) { return !p.shares.empty(); });
  int events = 0;
  for (ShmPeer& peer : peers_) {
    if (!peer.HasShareWork() || peer.failed) continue;
    StatusOr<int> shared = shm::PumpShares(peer, may_help);
    if (shared.ok()) {
      events += *shared;
    } else {
      FailPeer(peer, shared.status());
      ++events;
    }
    if (shut_down_) break;  // a completion shut us down
  }
  return events;
}

int ShmWire::DrainInbound(ShmPeer& peer, int index) {
  int handled = 0;
  while (handled < kDrainBudget) {
    const CellHeader* cell = peer.in.Peek();
    if (cell == nullptr) break;
    // Ask for the rest of the cell now: those misses then overlap the matching.
    const uint64_t cell_bytes = std::min<uint64_t>(shm::CellBytes(cell->length), kPrefetchBytes);
    for (uint64_t line = shm::kCacheLine; line < cell_bytes; line += shm::kCacheLine) {
      __builtin_prefetch(reinterpret_cast<const char*>(cell) + line);
    }
    if (cell->kind == CellKind::kEager) {  // the common case, without the switch
      sink_->OnEager(peer.world_rank, cell->match(), std::span<const std::byte>(cell->payload(), cell->length));
    } else {
      HandleCell(peer, index, *cell);
    }
    ++handled;
    if (shut_down_) return handled;  // a callback shut us down: the ring is unmapped
    peer.in.Advance();
  }
  if (peer.in.unreleased() >= kReleaseAtOnce) peer.in.Release();  // a sender streaming needs room soon
  return handled;
}

void ShmWire::HandleCell(ShmPeer& peer, int index, const CellHeader& cell) {
  switch (cell.kind) {
    case CellKind::kEager:
      sink_->OnEager(peer.world_rank, cell.match(), std::span<const std::byte>(cell.payload(), cell.length));
      return;
    case CellKind::kRts: {
      shm::RtsPayload rts;
      std::memcpy(&rts, cell.payload(), sizeof(rts));
      const MatchHeader match = cell.match();
      sink_->OnPending(peer.world_rank, match,
                       std::make_unique<shm::ShmPendingPayload>(anchor_, index, rts, match.bytes));
      return;
    }
    case CellKind::kCts: shm::HandleCts(peer, cell.control()); return;
    case CellKind::kFin: shm::HandleFin(peer, cell.control()); return;
    case CellKind::kFrag: shm::HandleFrag(peer, cell); return;
    case CellKind::kHelp: {
      shm::ShareOffer offer;
      if (cell.length < sizeof(offer)) break;
      std::memcpy(&offer, cell.payload(), sizeof(offer));
      shm::HandleHelp(peer, offer);
      return;
    }
    default: break;
  }
  GR_LOG(Warn, P2p) << "shm: ignoring a malformed cell or one of unknown kind " << static_cast<int>(cell.kind)
                    << " from rank " << peer.world_rank;
}

void ShmWire::CheckPeers() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < kCheckInterval) return;
  last_check_ = now;
  for (ShmPeer& peer : peers_) {
    if (peer.failed || !peer.Waiting() || peer.liveness.Alive()) continue;
    FailPeer(peer, RemoteError("rank " + std::to_string(peer.world_rank) + " (pid " +
                               std::to_string(peer.liveness.pid()) + ") exited during a shared-memory transfer"));
  }
}

void ShmWire::FailPeer(ShmPeer& peer, const Status& why) {
  if (peer.failed) return;
  peer.failed = true;
  peer.failure = why;
  GR_LOG(Warn, P2p) << "shm: " << why.ToString();
  std::vector<Completion> dones = peer.TakeCompletions();
  sink_->OnPeerFailed(peer.world_rank, why);
  for (Completion& done : dones) done(why);
}

void ShmWire::FetchPayload(int peer_index, const shm::RtsPayload& rts, void* dst, uint64_t bytes, Completion done) {
  ShmPeer& peer = peers_[peer_index];
  if (peer.failed) {
    done(peer.failure);
    return;
  }
  const Status gone = shm::FetchFromPeer(peer, rts, dst, bytes, std::move(done));
  if (!gone.ok()) FailPeer(peer, gone);
}

void ShmWire::DiscardPayload(int peer_index, uint64_t send_id) {
  ShmPeer& peer = peers_[peer_index];
  if (peer.failed) return;
  shm::OutboundItem fin;
  fin.kind = CellKind::kFin;
  fin.control = shm::ControlWords{send_id, static_cast<uint64_t>(grRemoteError)};
  shm::PostOrQueue(peer, std::move(fin));
}

void ShmWire::Shutdown(const Status& why) {
  if (shut_down_) return;
  shut_down_ = true;
  anchor_->host = nullptr;
  anchor_->why = why;
  std::vector<Completion> dones;
  for (ShmPeer& peer : peers_) {
    if (!peer.failed && !peer.shares.empty()) shm::QuiesceShares(peer, kQuiesceLimit);
    for (Completion& done : peer.TakeCompletions()) dones.push_back(std::move(done));
    peer.out = shm::RingProducer();
    peer.in = shm::RingConsumer();
    peer.remote.Reset();
  }
  own_.Reset();
  for (Completion& done : dones) done(why);
}

int64_t ShmWire::EagerLimit(int world_peer) const {
  const int index = PeerIndex(world_peer);
  return index < 0 ? -1 : static_cast<int64_t>(peers_[index].eager_limit);
}

uint64_t ShmWire::SharedChunksWritten() const {
  uint64_t chunks = 0;
  for (const ShmPeer& peer : peers_) chunks += peer.chunks_written;
  return chunks;
}

bool ShmWire::UsesCma(int world_peer) const {
  const int index = PeerIndex(world_peer);
  return index >= 0 && peers_[index].cma;
}

}  // namespace gpurun::p2p
