// ShmWire: the point-to-point wire between ranks of one node, through POSIX
// shared memory.
//
// Each rank creates one segment holding its inbound rings, one per peer it
// reaches (shm_layout.h); senders map the receiver's segment and produce into
// their ring (shm_ring.h). Segments are named after the job and rank
// (shm_names.h) and unlinked as soon as every peer has mapped them, so a
// crash after Create leaves nothing in /dev/shm.
//
// Messages up to GPURUN_SHM_EAGER_LIMIT travel as one eager cell (envelope
// and payload together; shm_cell.h); Send completes once the cell is in the
// ring. Larger ones use the rendezvous (shm_rendezvous.h): single copy with
// process_vm_readv when GPURUN_SHM_CMA allows it (a large one copied by
// receiver and sender together, GPURUN_SHM_SHARE_CHUNK), else pipelined
// through the ring in fragments. A full ring queues the message locally; Progress retries.
// One sender's messages reach the sink in send order, eager and rendezvous
// mixed.
//
// A peer found gone while something waits on it (a rendezvous, or a send held
// back by a full ring; checked about once a millisecond) is reported to
// WireSink::OnPeerFailed, and those operations complete with grRemoteError.
//
// Threading: as every Wire (wire.h), driven by one thread at a time.
#ifndef GPURUN_P2P_SHM_SHM_WIRE_H_
#define GPURUN_P2P_SHM_SHM_WIRE_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "p2p/shm/shm_names.h"
#include "p2p/shm/shm_peer.h"
#include "p2p/shm/shm_rendezvous.h"
#include "p2p/shm/shm_segment.h"
#include "p2p/wire.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

class ShmWire final : public Wire, private shm::PayloadHost {
 public:
  // Collective over the whole job: every rank calls it, in the same order
  // relative to other bootstrap collectives, also with an empty `reach`.
  // Connects to the world ranks in `reach` (all on this node, each listing
  // this rank in its own reach). `peers` is the job's peer table, indexed by
  // world rank. Uses two bootstrap all-gathers. On any rank's failure every
  // rank returns an error, and no segment is left in /dev/shm. Reads
  // GPURUN_SHM_EAGER_LIMIT (ring cells are sized for it, up to 4 MiB) and
  // GPURUN_SHM_CMA (auto: probe process_vm_readv of each peer once; on: fail
  // with grUnsupported where the probe fails; off: bounce buffers only).
  static StatusOr<std::unique_ptr<ShmWire>> Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                                   const std::vector<int>& reach);

  ~ShmWire() override;

  const char* name() const override { return "shm"; }
  bool CarriesDeviceRendezvous() const override { return true; }
  bool Reaches(int world_peer) const override { return PeerIndex(world_peer) >= 0; }
  // Never blocks. Errors: grInvalidArgument (peer not reached),
  // grRemoteError (peer known gone), grInvalidUsage (after Shutdown); `done`
  // is not called then.
  Status Send(int world_peer, const MatchHeader& header, const void* data, Completion done) override;
  bool TrySend(int world_peer, const MatchHeader& header, const void* data) override;
  StatusOr<int> Progress() override;
  void Shutdown(const Status& why) override;

  // Largest payload sent eagerly to `world_peer` (GPURUN_SHM_EAGER_LIMIT,
  // clamped to what the peer's ring holds); -1 if not reached.
  int64_t EagerLimit(int world_peer) const;
  // Whether payloads from `world_peer` are fetched with process_vm_readv.
  bool UsesCma(int world_peer) const;
  // Chunks of this wire's sends it wrote into receivers' buffers, sharing
  // their copy (GPURUN_SHM_SHARE_CHUNK; shm_shared_copy.h).
  uint64_t SharedChunksWritten() const;

 private:
  friend class ShmWireBuilder;
  explicit ShmWire(int world_size);

  int PeerIndex(int world_peer) const {
    return world_peer >= 0 && world_peer < static_cast<int>(peer_index_.size()) ? peer_index_[world_peer] : -1;
  }
  int DrainInbound(shm::ShmPeer& peer, int index);
  int PumpShares();
  void HandleCell(shm::ShmPeer& peer, int index, const shm::CellHeader& cell);
  void CheckPeers();
  void FailPeer(shm::ShmPeer& peer, const Status& why);

  // PayloadHost.
  void FetchPayload(int peer_index, const shm::RtsPayload& rts, void* dst, uint64_t bytes, Completion done) override;
  void DiscardPayload(int peer_index, uint64_t send_id) override;

  std::vector<int> peer_index_;  // world rank → index in peers_, or -1
  std::vector<shm::ShmPeer> peers_;
  shm::ShmSegment own_;  // our inbound rings
  std::shared_ptr<shm::PayloadAnchor> anchor_;
  uint64_t next_send_id_ = 1;
  bool shut_down_ = false;
  uint32_t progress_calls_ = 0;
  std::chrono::steady_clock::time_point last_check_{};
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_SHM_SHM_WIRE_H_
