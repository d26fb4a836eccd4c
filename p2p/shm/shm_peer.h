// ShmPeer: what the shm wire keeps for one connected peer — the two rings
// (outbound: ours in the peer's segment; inbound: the peer's in ours), the
// sends waiting for ring room, and the rendezvous in flight both ways.
//
// Thread safety: owned and driven by the wire's thread.
#ifndef GPURUN_P2P_SHM_SHM_PEER_H_
#define GPURUN_P2P_SHM_SHM_PEER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "p2p/shm/shm_cell.h"
#include "p2p/shm/shm_liveness.h"
#include "p2p/shm/shm_ring.h"
#include "p2p/shm/shm_segment.h"
#include "p2p/wire.h"

namespace gpurun::p2p::shm {

// A cell that found the ring full, kept in send order until there is room.
struct OutboundItem {
  CellKind kind = CellKind::kEager;  // kEager, kRts, kCts or kFin
  MatchHeader match;                 // kEager, kRts
  const void* data = nullptr;        // kEager: the payload
  ControlWords control;              // kRts: {send id, address}; kCts, kFin: the body
  Completion done;                   // kEager: runs once copied into the ring
};

// Sender side of a rendezvous: waits for FIN (the receiver read it, or
// discarded it) or CTS (stream `wanted` bytes as FRAG cells).
struct RndvSend {
  const std::byte* data = nullptr;
  uint64_t bytes = 0;
  uint64_t wanted = 0;  // after CTS: bytes the receiver takes
  uint64_t offset = 0;  // bytes streamed so far
  Completion done;
};

// Receiver side of a bounce-buffer rendezvous: FRAG cells land in `dst`.
struct RndvRecv {
  std::byte* dst = nullptr;
  uint64_t wanted = 0;
  uint64_t received = 0;
  Completion done;
};

struct ShmPeer {
  int world_rank = -1;
  ShmSegment remote;  // the peer's segment, holding our outbound ring
  RingProducer out;
  RingConsumer in;
  uint64_t eager_limit = 0;  // largest eager payload towards this peer
  uint64_t frag_bytes = 0;   // FRAG payload size towards this peer
  bool cma = false;          // fetch this peer's payloads with process_vm_readv
  PeerLiveness liveness;
  bool failed = false;
  Status failure;

  std::deque<OutboundItem> backlog;  // not yet in the ring, in send order
  std::deque<uint64_t> streams;      // send ids with CTS received, streaming FRAGs
  std::unordered_map<uint64_t, RndvSend> sends;
  std::unordered_map<uint64_t, RndvRecv> recvs;

  // Whether anything here waits on the peer (worth a liveness check).
  bool Waiting() const { return !backlog.empty() || !sends.empty() || !recvs.empty(); }
  // Whether Progress has outbound work for this peer.
  bool HasOutbound() const { return !backlog.empty() || !streams.empty(); }

  // Forgets every queued cell and rendezvous, returning the completions still
  // owed, for the caller to run with an error.
  std::vector<Completion> TakeCompletions() {
    std::vector<Completion> dones;
    for (OutboundItem& item : backlog) {
      if (item.done) dones.push_back(std::move(item.done));
    }
    for (auto& [id, send] : sends) dones.push_back(std::move(send.done));
    for (auto& [id, recv] : recvs) dones.push_back(std::move(recv.done));
    backlog.clear();
    streams.clear();
    sends.clear();
    recvs.clear();
    return dones;
  }
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_PEER_H_
