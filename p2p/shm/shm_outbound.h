// Writing cells towards a peer: the eager fast path (one Reserve, one memcpy,
// one release store) and the backlog that keeps cells in send order while
// the peer's ring is full. Nothing here blocks or drops: a cell that does not
// fit waits in ShmPeer::backlog until FlushBacklog finds room.
//
// Thread safety: called from the wire's thread only.
#ifndef GPURUN_P2P_SHM_SHM_OUTBOUND_H_
#define GPURUN_P2P_SHM_SHM_OUTBOUND_H_

#include <cstring>

#include "p2p/shm/shm_peer.h"

namespace gpurun::p2p::shm {

// Copies an eager message into the ring; false when the ring is full.
inline bool TryPostEager(RingProducer& out, const MatchHeader& match, const void* data) {
  CellHeader* cell = out.Reserve(static_cast<uint32_t>(match.bytes));
  if (cell == nullptr) return false;
  cell->kind = CellKind::kEager;
  cell->SetMatch(match);
  if (match.bytes != 0) std::memcpy(cell->payload(), data, match.bytes);
  out.Commit();
  return true;
}

// Posts one queued item (any kind); false when the ring is full.
bool TryPostItem(RingProducer& out, const OutboundItem& item);

// Posts `item` now if nothing is queued before it and the ring has room,
// else queues it. Eager items complete (item.done) once in the ring.
void PostOrQueue(ShmPeer& peer, OutboundItem item);

// Posts queued items in order until the ring is full; runs the completions of
// the eager ones. Returns how many were posted.
int FlushBacklog(ShmPeer& peer);

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_OUTBOUND_H_
