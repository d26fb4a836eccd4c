// Wire: one transport that moves point-to-point messages between this rank and
// some of its peers (shm: same node; ucx: other nodes, or any peer when
// forced). The engine (p2p/engine.h) owns the wires, routes each peer to one
// of them, and does all MPI matching; a wire only moves envelopes and bytes.
//
// Threading: a wire is driven by one thread at a time (the engine holds its
// lock around every call). Callbacks (WireSink, completions) run inside
// Send/Progress/Fetch calls on that thread and must not call back into the
// wire except through the objects they are handed.
#ifndef GPURUN_P2P_WIRE_H_
#define GPURUN_P2P_WIRE_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "p2p/match_header.h"
#include "runtime/base/status.h"

namespace gpurun::p2p {

// Called once when an operation ends: OK, or the error that ended it.
using Completion = std::function<void(const Status&)>;

// A large message whose payload has not moved yet. The engine keeps it until
// a receive matches, then calls Fetch once. Destroying it without Fetch
// (receive cancelled, finalize) must release the sender with an error.
class PendingPayload {
 public:
  virtual ~PendingPayload() = default;
  // Moves the first `bytes` bytes of the payload (bytes <= header.bytes; less
  // when the receive buffer is too small: the rest is discarded, never written)
  // into `dst`, then calls `done` from this call or a later Progress().
  virtual void Fetch(void* dst, size_t bytes, Completion done) = 0;
  // Whether Fetch may write GPU memory (a device rendezvous); wires' payloads
  // write host memory only, so the engine stages a device receive through host
  // memory for them.
  virtual bool FetchesIntoDevice() const { return false; }
};

// Where a wire delivers what arrives. Implemented by the engine.
class WireSink {
 public:
  virtual ~WireSink() = default;
  // A message whose payload is in hand; `payload` is valid during the call only.
  virtual void OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) = 0;
  // A message whose payload is fetched later through `payload`.
  virtual void OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) = 0;
  // The wire learned that a peer is gone (connection lost, process exited).
  virtual void OnPeerFailed(int world_peer, const Status& why) = 0;
};

// Factories (ShmWire::Create, UcxWire::Create) take the bootstrap, the peer
// table and the world ranks the wire must reach; they are collective over the
// whole job (the engine makes every rank create the same wires in the same
// order, also with nothing to reach) and use the bootstrap to exchange
// endpoint data.
class Wire {
 public:
  virtual ~Wire() = default;
  // Where arrivals and peer failures go; set by the engine before any other call.
  void set_sink(WireSink* sink) { sink_ = sink; }
  // "shm", "ucx".
  virtual const char* name() const = 0;
  // Whether this wire connects processes of one host, so the device-memory
  // rendezvous (device_transfer.h: CUDA IPC) can run over it. ucx: no. Every
  // wire delivers the engine's flagged messages (MatchHeader::flags, at most
  // 128 bytes: sync notes, DeviceRts, DeviceFin) eagerly, through
  // WireSink::OnEager, with their flags.
  virtual bool CarriesDeviceRendezvous() const { return false; }
  // Whether this wire has a connection to `world_peer`.
  virtual bool Reaches(int world_peer) const = 0;
  // Starts sending `header.bytes` bytes from `data` to `world_peer`. `done`
  // runs when `data` may be reused (possibly before the receiver has it).
  // Messages to one peer arrive in the order Send was called. If Send returns
  // an error, `done` is never called (the engine then owns the request alone).
  virtual Status Send(int world_peer, const MatchHeader& header, const void* data, Completion done) = 0;
  // Sends the message only if that finishes at once, without waiting and
  // without a completion (shm: an eager message, room in the ring, nothing
  // queued before it): true means it is on its way in order and `data` may be
  // reused; false means nothing happened and the caller uses Send. The
  // engine's fast path for eager sends; the default never takes it.
  virtual bool TrySend(int /*world_peer*/, const MatchHeader& /*header*/, const void* /*data*/) { return false; }
  // Moves pending traffic in both directions and delivers arrivals to the
  // sink. Returns the number of events handled (0 when idle).
  virtual StatusOr<int> Progress() = 0;
  // Releases every resource; pending operations complete with `why`.
  virtual void Shutdown(const Status& why) = 0;

 protected:
  WireSink* sink_ = nullptr;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_WIRE_H_
