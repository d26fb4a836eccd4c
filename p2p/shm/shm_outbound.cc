// Outbound cells and the per-peer backlog (see shm_outbound.h).
#include "p2p/shm/shm_outbound.h"

#include <cstring>
#include <utility>

namespace gpurun::p2p::shm {

bool TryPostItem(RingProducer& out, const OutboundItem& item) {
  switch (item.kind) {
    case CellKind::kEager: return TryPostEager(out, item.match, item.data);
    case CellKind::kRts: {
      CellHeader* cell = out.Reserve(sizeof(RtsPayload));
      if (cell == nullptr) return false;
      cell->kind = CellKind::kRts;
      cell->SetMatch(item.match);
      const RtsPayload rts{item.control.send_id, item.control.value};
      std::memcpy(cell->payload(), &rts, sizeof(rts));
      out.Commit();
      return true;
    }
    case CellKind::kHelp: {
      CellHeader* cell = out.Reserve(sizeof(ShareOffer));
      if (cell == nullptr) return false;
      cell->kind = CellKind::kHelp;
      std::memcpy(cell->payload(), &item.offer, sizeof(item.offer));
      out.Commit();
      return true;
    }
    default: {
      CellHeader* cell = out.Reserve(0);
      if (cell == nullptr) return false;
      cell->kind = item.kind;
      cell->SetControl(item.control);
      out.Commit();
      return true;
    }
  }
}

void PostOrQueue(ShmPeer& peer, OutboundItem item) {
  if (peer.backlog.empty() && TryPostItem(peer.out, item)) {
    if (item.done) item.done(OkStatus());
    return;
  }
  peer.backlog.push_back(std::move(item));
}

int FlushBacklog(ShmPeer& peer) {
  int posted = 0;
  while (!peer.backlog.empty()) {
    if (!TryPostItem(peer.out, peer.backlog.front())) break;
    Completion done = std::move(peer.backlog.front().done);
    peer.backlog.pop_front();
    ++posted;
    if (done) done(OkStatus());  // may queue more; nothing here is held across it
  }
  return posted;
}

}  // namespace gpurun::p2p::shm
