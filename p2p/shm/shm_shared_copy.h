// The shared copy of a large CMA rendezvous, both sides (the protocol and the
// slot words: shm_share.h; the rendezvous around it: shm_rendezvous.h).
//
// Receiver: FetchFromPeer hands a payload of at least two chunks
// (GPURUN_SHM_SHARE_CHUNK) to StartSharedRead when one of the peer's slots is
// free; it opens the slot and offers the sender the copy (HELP). Sender: the
// HELP cell reaches HandleHelp, which queues the offer if the send is still
// waiting and this process may write the peer. PumpShares then copies one
// chunk of every shared copy and (when this rank helps, see there) of every
// offer per call, and finishes the copies whose chunks are all taken and
// whose sender is quiet (FIN, then the receive's completion). Every wait
// here is a rendezvous in flight, so the wire's liveness check covers it.
//
// Thread safety: the wire's thread only.
#ifndef GPURUN_P2P_SHM_SHM_SHARED_COPY_H_
#define GPURUN_P2P_SHM_SHM_SHARED_COPY_H_

#include <chrono>
#include <cstdint>

#include "p2p/shm/shm_peer.h"

namespace gpurun::p2p::shm {

// Receiver: opens a shared copy of `bytes` of `rts` into `dst` and takes over
// `done` (true), or leaves both alone (false: too small, sharing off, no
// free slot).
bool StartSharedRead(ShmPeer& peer, const RtsPayload& rts, void* dst, uint64_t bytes, Completion& done);

// Sender: the peer offers a share of the copy of one of our sends.
void HandleHelp(ShmPeer& peer, const ShareOffer& offer);

// Both: one chunk of each shared copy and, if `may_help`, of each offer;
// finishes what is complete. Returns the chunks copied and copies finished,
// or an error when the peer is found gone (the affected receives have
// completed with it). The wire lets a rank help only while it has no shared
// copy of its own to make: a rank copying its own receive gains nothing by
// interleaving its peer's (both cores are busy; measured 10-25% slower for a
// 2-rank allgather of 2-8 MiB), and the help is for the rank that waits.
StatusOr<int> PumpShares(ShmPeer& peer, bool may_help);

// Receiver, at shutdown: takes every chunk not yet taken and waits, up to
// `limit`, for the sender to finish the ones it took, so that nothing writes
// into a receive buffer after its receive completed. The copies stay in
// `peer.shares` for the caller to fail.
void QuiesceShares(ShmPeer& peer, std::chrono::milliseconds limit);

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_SHARED_COPY_H_
