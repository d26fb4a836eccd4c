// Rendezvous protocol (see shm_rendezvous.h).
#include "p2p/shm/shm_rendezvous.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "p2p/shm/shm_cma.h"
#include "p2p/shm/shm_outbound.h"
#include "p2p/shm/shm_shared_copy.h"
#include "runtime/base/log.h"

namespace gpurun::p2p::shm {

ShmPendingPayload::~ShmPendingPayload() {
  if (!fetched_ && anchor_->host != nullptr) anchor_->host->DiscardPayload(peer_index_, rts_.send_id);
}

void ShmPendingPayload::Fetch(void* dst, size_t bytes, Completion done) {
  if (!done) done = [](const Status&) {};
  if (fetched_) {
    done(InvalidUsage("shm wire: payload fetched twice"));
    return;
  }
  fetched_ = true;
  if (anchor_->host == nullptr) {
    done(anchor_->why);
    return;
  }
  anchor_->host->FetchPayload(peer_index_, rts_, dst, std::min<uint64_t>(bytes, bytes_), std::move(done));
}

void StartRendezvousSend(ShmPeer& peer, uint64_t send_id, const MatchHeader& match, const void* data, Completion done) {
  peer.sends.emplace(send_id, RndvSend{static_cast<const std::byte*>(data), match.bytes, 0, 0, std::move(done)});
  OutboundItem rts;
  rts.kind = CellKind::kRts;
  rts.match = match;
  rts.control = ControlWords{send_id, reinterpret_cast<uint64_t>(data)};
  PostOrQueue(peer, std::move(rts));
}

void HandleCts(ShmPeer& peer, const ControlWords& control) {
  auto it = peer.sends.find(control.send_id);
  if (it == peer.sends.end()) return;  // failed or shut down meanwhile
  it->second.wanted = std::min(control.value, it->second.bytes);
  peer.streams.push_back(control.send_id);
}

void HandleFin(ShmPeer& peer, const ControlWords& control) {
  auto node = peer.sends.extract(control.send_id);
  if (node.empty()) return;
  const auto code = static_cast<grResult_t>(control.value);
  if (code == grSuccess) {
    node.mapped().done(OkStatus());
  } else {
    node.mapped().done(Status(code, "rank " + std::to_string(peer.world_rank) +
                                        " dropped the message without receiving it (receive cancelled)"));
  }
}

// Posts FRAG cells of one send; true once its last fragment is in the ring.
static bool StreamOne(ShmPeer& peer, uint64_t send_id, RndvSend& send, int* posted) {
  for (;;) {
    const uint64_t length = std::min(peer.frag_bytes, send.wanted - send.offset);
    CellHeader* cell = peer.out.Reserve(static_cast<uint32_t>(length));
    if (cell == nullptr) return false;
    const bool last = send.offset + length == send.wanted;
    cell->kind = CellKind::kFrag;
    cell->flags = last ? kLastFragment : 0;
    cell->SetControl(ControlWords{send_id, send.offset});
    if (length != 0) std::memcpy(cell->payload(), send.data + send.offset, length);
    peer.out.Commit();
    send.offset += length;
    ++*posted;
    if (last) return true;
  }
}

int PumpFragments(ShmPeer& peer) {
  int posted = 0;
  while (!peer.streams.empty()) {
    const uint64_t send_id = peer.streams.front();
    auto it = peer.sends.find(send_id);
    if (it != peer.sends.end() && !StreamOne(peer, send_id, it->second, &posted)) break;
    peer.streams.pop_front();
    if (it == peer.sends.end()) continue;
    Completion done = std::move(it->second.done);
    peer.sends.erase(it);
    done(OkStatus());
  }
  return posted;
}

void AskForFragments(ShmPeer& peer, uint64_t send_id, void* dst, uint64_t bytes, Completion done) {
  peer.recvs.emplace(send_id, RndvRecv{static_cast<std::byte*>(dst), bytes, 0, std::move(done)});
  OutboundItem cts;
  cts.kind = CellKind::kCts;
  cts.control = ControlWords{send_id, bytes};
  PostOrQueue(peer, std::move(cts));
}

void AnswerFin(ShmPeer& peer, uint64_t send_id) {
  OutboundItem fin;
  fin.kind = CellKind::kFin;
  fin.control = ControlWords{send_id, static_cast<uint64_t>(grSuccess)};
  PostOrQueue(peer, std::move(fin));
}

Status ReadOrBounce(ShmPeer& peer, uint64_t send_id, uint64_t address, void* dst, uint64_t bytes, Completion& done) {
  Status read = CmaRead(peer.liveness.pid(), address, dst, bytes);
  if (read.code() == grRemoteError) {
    Status why = read.WithContext("rank " + std::to_string(peer.world_rank));
    done(why);
    return why;
  }
  if (!read.ok()) {
    // The probe passed, so this is unexpected (the peer changed credentials?):
    // use the bounce buffers from now on rather than failing the message.
    GR_LOG(Warn, P2p) << "shm: " << read.ToString() << "; switching rank " << peer.world_rank << " to bounce buffers";
    peer.cma = false;
    AskForFragments(peer, send_id, dst, bytes, std::move(done));
    return OkStatus();
  }
  AnswerFin(peer, send_id);
  done(OkStatus());
  return OkStatus();
}

Status FetchFromPeer(ShmPeer& peer, const RtsPayload& rts, void* dst, uint64_t bytes, Completion done) {
  if (!peer.cma) {
    AskForFragments(peer, rts.send_id, dst, bytes, std::move(done));
    return OkStatus();
  }
  if (StartSharedRead(peer, rts, dst, bytes, done)) return PumpShares(peer, /*may_help=*/false).status();
  return ReadOrBounce(peer, rts.send_id, rts.address, dst, bytes, done);
}

void HandleFrag(ShmPeer& peer, const CellHeader& cell) {
  const ControlWords control = cell.control();
  auto it = peer.recvs.find(control.send_id);
  if (it == peer.recvs.end()) return;  // failed or shut down meanwhile
  RndvRecv& recv = it->second;
  if (control.value < recv.wanted) {
    const uint64_t n = std::min<uint64_t>(cell.length, recv.wanted - control.value);
    std::memcpy(recv.dst + control.value, cell.payload(), n);
    recv.received += n;
  }
  if ((cell.flags & kLastFragment) == 0) return;
  Completion done = std::move(recv.done);
  peer.recvs.erase(it);
  done(OkStatus());
}

}  // namespace gpurun::p2p::shm
