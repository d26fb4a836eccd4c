// ShmPeer: what the shm wire keeps for one connected peer — the two rings
// (outbound: ours in the peer's segment; inbound: the peer's in ours), the
// sends waiting for ring room, the rendezvous in flight both ways, and the
// shared copies (shm_share.h) it takes part in on either side.
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
#include "p2p/shm/shm_share.h"
#include "p2p/wire.h"

namespace gpurun::p2p::shm {

// A cell that found the ring full, kept in send order until there is room.
struct OutboundItem {
  CellKind kind = CellKind::kEager;  // kEager, kRts, kCts, kFin or kHelp
  MatchHeader match;                 // kEager, kRts
  const void* data = nullptr;        // kEager: the payload
  ControlWords control;              // kRts: {send id, address}; kCts, kFin: the body
  ShareOffer offer;                  // kHelp: the payload
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

// Receiver side of a shared copy: the chunks this side took, and once every
// chunk is taken (`closed`), the wait for the sender's last ones.
struct ShareRecv {
  uint64_t send_id = 0;
  uint64_t src = 0;  // the sender's buffer, in its address space
  std::byte* dst = nullptr;
  uint64_t bytes = 0;
  uint64_t chunk_bytes = 0;
  uint32_t slot = 0;
  uint32_t generation = 0;
  uint32_t chunks = 0;
  uint32_t own = 0;     // chunks taken here
  uint32_t taken = 0;   // once closed: chunks taken by both sides
  bool closed = false;  // nothing more can be taken
  bool bounce = false;  // process_vm_readv stopped working: fetch through the ring once the sender is quiet
  bool reread = false;  // the sender's write failed: read the whole payload here
  Completion done;
};

struct ShmPeer {
  int world_rank = -1;
  ShmSegment remote;  // the peer's segment, holding our outbound ring
  RingProducer out;
  RingConsumer in;
  uint64_t eager_limit = 0;        // largest eager payload towards this peer
  uint64_t frag_bytes = 0;         // FRAG payload size towards this peer
  bool cma = false;                // fetch this peer's payloads with process_vm_readv
  uint64_t share_chunk = 0;        // share copies of this peer's payloads of two chunks and more (0: never)
  ShareArea* share_in = nullptr;   // slots of this peer's payloads to us (our segment)
  ShareArea* share_out = nullptr;  // slots of our payloads to this peer (its segment)
  bool helps = true;               // answer this peer's HELP (false after a failed write)
  PeerLiveness liveness;
  bool failed = false;
  Status failure;

  std::deque<OutboundItem> backlog;  // not yet in the ring, in send order
  std::deque<uint64_t> streams;      // send ids with CTS received, streaming FRAGs
  std::unordered_map<uint64_t, RndvSend> sends;
  std::unordered_map<uint64_t, RndvRecv> recvs;
  std::vector<ShareRecv> shares;  // shared copies of this peer's payloads
  uint32_t slots_busy = 0;        // bit i: shares use share_in->slots[i]
  uint32_t share_generation = 0;  // the last slot generation opened
  std::deque<ShareOffer> offers;  // HELP from this peer, worked a chunk at a time
  uint64_t chunks_written = 0;    // chunks of our sends written into this peer's buffers

  // Whether anything here waits on the peer (worth a liveness check).
  bool Waiting() const { return !backlog.empty() || !sends.empty() || !recvs.empty() || !shares.empty(); }
  // Whether Progress has outbound work for this peer.
  bool HasOutbound() const { return !backlog.empty() || !streams.empty(); }
  // Whether Progress has chunks to copy, or a shared copy to finish.
  bool HasShareWork() const { return !shares.empty() || !offers.empty(); }

  // Forgets every queued cell and rendezvous, returning the completions still
  // owed, for the caller to run with an error.
  std::vector<Completion> TakeCompletions() {
    std::vector<Completion> dones;
    for (OutboundItem& item : backlog) {
      if (item.done) dones.push_back(std::move(item.done));
    }
    for (auto& [id, send] : sends) dones.push_back(std::move(send.done));
    for (auto& [id, recv] : recvs) dones.push_back(std::move(recv.done));
    for (ShareRecv& share : shares) dones.push_back(std::move(share.done));
    backlog.clear();
    streams.clear();
    sends.clear();
    recvs.clear();
    shares.clear();
    offers.clear();
    return dones;
  }
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_PEER_H_
