// UcxWire: the point-to-point wire over UCX's tag API, for peers on other
// nodes (and for any peer when GPURUN_P2P_TRANSPORT=ucx).
//
// One UCP context (UCP_FEATURE_TAG) and one worker (UCS_THREAD_MODE_SINGLE)
// per wire; worker addresses are all-gathered through the bootstrap and one
// endpoint (error handling mode PEER) is created to each world rank in
// `reach`. On the wire:
//  - tag = (context 16 | communicator source 20 | user tag 28), ucx_tag.h;
//  - messages of at most kUcxEagerLimit (64 KiB) bytes travel in one tagged message
//    behind an 8-byte prefix that carries the sender's world rank; larger ones
//    as an announce frame (world rank + size) followed by the bare payload
//    with the same tag, so the receiver fetches straight into the user buffer
//    (ucx_frame.h). So OnEager/OnPending always get the true world source;
//  - the engine's flagged messages (sync notes and DeviceFins of synchronous
//    sends) travel eagerly with their flags in the frame (ucx_frame.h).
// Progress() probes arrivals with ucp_tag_probe_nb(any tag, remove) in the
// order they reached the worker, which keeps each sender's order; small ones
// are received into a reused buffer and handed over with OnEager, large ones
// with OnPending (the payload stays in UCX until Fetch).
//
// A peer whose endpoint fails (process died, connection lost) is reported
// once through WireSink::OnPeerFailed with grRemoteError naming its rank;
// its in-flight sends and fetches complete with that error, and later sends
// to it fail at once.
//
// Environment: UCX reads its own UCX_* variables (UCX_TLS, UCX_NET_DEVICES,
// ...); the wire never overrides them. Where UCX_RNDV_THRESH is unset it
// sends payloads up to kUcxWireEagerBytes eagerly (ucx_config.h): over TCP
// loopback between two simulated nodes (gpurun-bench latency) a 32 KiB
// message took 23-26 us one way with UCX's own threshold and 14-15 us so,
// 64 KiB 31-36 against 27-33, 128 KiB 40-43 against 34-35; `bw` at 32 KiB
// 2.5 against 3.7 GB/s. Larger payloads stay on rendezvous, so a receiver
// buffers at most that much per message it has not asked for yet. Where
// UCX_TCP_RX_SEG_SIZE is unset TCP's receive segment is kTcpRxSegSize
// (ucx_config.h: 512 KiB against UCX's 64 KiB, fewer reads and fragments per
// byte; host allreduce across two simulated nodes 13-20% faster from 256 KiB). On one host UCX would normally
// use shared memory, but in UCX 1.13 the shared-memory transports (posix,
// sysv, cma) do not support error handling mode PEER, so endpoints to local
// peers go over TCP (loopback) or whatever network UCX finds (measured: ~5 us
// one-way for small messages instead of ~0.5 us). Keep UCX on the machine in
// tests with UCX_NET_DEVICES=lo (and UCX_TLS=tcp,self for the TCP path).
//
// Threading: as every Wire, driven by one thread at a time.
#ifndef GPURUN_P2P_UCX_UCX_WIRE_H_
#define GPURUN_P2P_UCX_UCX_WIRE_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "p2p/wire.h"
#include "runtime/base/status.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

class UcxCore;

// Largest payload sent eagerly (inside one tagged message with its prefix).
// Only the sender uses it: receivers accept frames of any size. Above it a
// message costs two UCX messages (the announce frame, then the payload) and
// a receive posted after the announce is seen; copying up to 64 KiB into a
// frame costs less. Measured between two simulated nodes (UCX_NET_DEVICES=lo
// gpurun -n 2 --nodes 2 gpurun-bench latency -b 1K -e 256K -f 4, and bw -b
// 4K -e 1M -f 4), 2026-12-01, this limit against 8 KiB, alternating, two
// rounds: one way 16 KiB 16.5-19.3 against 22.7-23.8 us, 64 KiB 33.7-33.9
// against 47.8-48.3, 256 KiB (announced either way) the same; streaming 16
// KiB 1.94-1.96 against 0.88-0.94 GB/s, 64 KiB 2.36-2.38 against 1.79-1.91.
// The frame pool (ucx_ops.cc) then holds up to 64 such frames, 4 MiB.
inline constexpr size_t kUcxEagerLimit = 64 * 1024;

// Largest message UCX itself sends eagerly (the bare payload of a large
// message included), unless UCX_RNDV_THRESH says otherwise.
inline constexpr uint64_t kUcxWireEagerBytes = 128 * 1024;

// Where the time of Create went, in seconds.
struct UcxSetupTimes {
  double init_s = 0;      // ucp_config_read + ucp_init (the context)
  double worker_s = 0;    // ucp_worker_create + ucp_worker_get_address
  double exchange_s = 0;  // bootstrap all-gather of worker addresses
  double connect_s = 0;   // ucp_ep_create for every peer in reach
  double total_s = 0;
};

class UcxWire : public Wire {
 public:
  // Collective over the whole job: every rank calls it (also with an empty
  // `reach`) in the same order with respect to other bootstrap collectives.
  // `peers` is the job's peer table (indexed by world rank) and `reach` the
  // world ranks to connect to (may include this rank). A rank whose UCX setup
  // fails still takes part in the exchange, so its peers fail with an error
  // naming it instead of waiting.
  static StatusOr<std::unique_ptr<UcxWire>> Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                                   const std::vector<int>& reach);

  // Shuts down with grInternalError "wire destroyed" if Shutdown was not called.
  ~UcxWire() override;
  UcxWire(const UcxWire&) = delete;
  UcxWire& operator=(const UcxWire&) = delete;

  const char* name() const override { return "ucx"; }
  bool Reaches(int world_peer) const override;
  // Fails at once (and `done` never runs) when the peer is not reached, has
  // failed, the header does not fit the tag layout, or the wire is shut down.
  // Otherwise `done` runs when UCX releases `data` (inline when the send
  // completed inside this call), with grRemoteError if the peer failed first.
  Status Send(int world_peer, const MatchHeader& header, const void* data, Completion done) override;
  StatusOr<int> Progress() override;
  // Completes every pending send and fetch with `why`, closes the endpoints
  // (flush, bounded wait, then forced), destroys the worker and the context.
  // Pending payloads still held by the engine become inert (Fetch fails).
  // Idempotent.
  void Shutdown(const Status& why) override;

  const UcxSetupTimes& setup_times() const { return times_; }

 private:
  explicit UcxWire(std::shared_ptr<UcxCore> core) : core_(std::move(core)) {}

  std::shared_ptr<UcxCore> core_;
  UcxSetupTimes times_;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_WIRE_H_
