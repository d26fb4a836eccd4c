// The shm rendezvous for messages above the eager limit.
//
//   sender                               receiver
//   RTS {match, send id, address}  ──▶   OnPending(ShmPendingPayload)
//                                        ... a receive matches: Fetch(dst, n)
//   CMA:                                 process_vm_readv n bytes from address
//        (n >= 2 share chunks:     ◀──   HELP {ShareOffer}: both copy chunks,
//        writes chunks too)              shm_shared_copy.h; then
//        completes on FIN          ◀──   FIN {send id, result}
//   bounce:                        ◀──   CTS {send id, n}
//        FRAG {send id, offset} …  ──▶   copied out of the ring into dst
//        completes once the last FRAG is in the ring; the receiver on the last
//        FRAG (kLastFragment; an empty one when n == 0).
//
// The receiver picks CMA or bounce per sender (ShmPeer::cma, probed at
// creation), so both ends need not agree beforehand. A payload dropped
// without Fetch answers FIN with grRemoteError, and the send fails.
//
// Thread safety: the wire's thread only. A ShmPendingPayload may outlive the
// wire: it reaches the wire through a PayloadAnchor that Shutdown clears.
#ifndef GPURUN_P2P_SHM_SHM_RENDEZVOUS_H_
#define GPURUN_P2P_SHM_SHM_RENDEZVOUS_H_

#include <cstdint>
#include <memory>

#include "p2p/shm/shm_peer.h"
#include "p2p/wire.h"

namespace gpurun::p2p::shm {

// What a pending payload asks of the wire that made it.
class PayloadHost {
 public:
  virtual ~PayloadHost() = default;
  virtual void FetchPayload(int peer_index, const RtsPayload& rts, void* dst, uint64_t bytes, Completion done) = 0;
  virtual void DiscardPayload(int peer_index, uint64_t send_id) = 0;
};

// Shared between the wire and its payloads; `host` is null once the wire is
// shut down, and `why` then says why.
struct PayloadAnchor {
  PayloadHost* host = nullptr;
  Status why;
};

class ShmPendingPayload final : public PendingPayload {
 public:
  ShmPendingPayload(std::shared_ptr<PayloadAnchor> anchor, int peer_index, const RtsPayload& rts, uint64_t bytes)
      : anchor_(std::move(anchor)), peer_index_(peer_index), rts_(rts), bytes_(bytes) {}
  ~ShmPendingPayload() override;
  void Fetch(void* dst, size_t bytes, Completion done) override;

 private:
  std::shared_ptr<PayloadAnchor> anchor_;
  int peer_index_;
  RtsPayload rts_;
  uint64_t bytes_;
  bool fetched_ = false;
};

// Sender: registers send `send_id` and posts (or queues) its RTS.
void StartRendezvousSend(ShmPeer& peer, uint64_t send_id, const MatchHeader& match, const void* data, Completion done);
// Sender: the receiver wants `control.value` bytes streamed.
void HandleCts(ShmPeer& peer, const ControlWords& control);
// Sender: the receiver is done with send `control.send_id` (read or discarded).
void HandleFin(ShmPeer& peer, const ControlWords& control);
// Sender: streams FRAG cells of accepted sends while the ring has room.
// Returns how many cells it posted.
int PumpFragments(ShmPeer& peer);

// Receiver: reads the payload (CMA) or asks for it (CTS). Returns an error
// only when the peer is found gone (after completing `done` with it).
Status FetchFromPeer(ShmPeer& peer, const RtsPayload& rts, void* dst, uint64_t bytes, Completion done);
// Receiver: a FRAG cell arrived.
void HandleFrag(ShmPeer& peer, const CellHeader& cell);

// Receiver, the steps FetchFromPeer is made of. AskForFragments: CTS, the
// payload comes through the ring. AnswerFin: the payload is read. ReadOrBounce:
// process_vm_readv of all of it, then FIN and `done`; on an unexpected
// failure the bounce buffers from now on; an error (after `done`) when the
// peer is gone.
void AskForFragments(ShmPeer& peer, uint64_t send_id, void* dst, uint64_t bytes, Completion done);
void AnswerFin(ShmPeer& peer, uint64_t send_id);
Status ReadOrBounce(ShmPeer& peer, uint64_t send_id, uint64_t address, void* dst, uint64_t bytes, Completion& done);

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_RENDEZVOUS_H_
