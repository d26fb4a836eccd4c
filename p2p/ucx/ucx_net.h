// UcxNet: the network side of the collective NET connectors: one UCP context
// and worker (UCP_FEATURE_TAG, UCS_THREAD_MODE_SERIALIZED) owned by a NET
// proxy (coll/host/net_proxy.h), endpoints to the peers on other hosts, and
// tagged sends / receives of FIFO steps with exact tags (the proxy packs
// connection and step into them). Separate from the point-to-point UcxWire:
// the proxy drives this worker from its own thread (and from the executor's
// waits, under the proxy's lock), the wire is driven by the engine.
//
// Endpoints use error handling mode PEER (so, as for UcxWire, UCX takes TCP
// for peers on this host: its shared-memory transports cannot report peer
// failure); a failed endpoint makes PeerError(peer) a grRemoteError naming the
// peer, and its sends complete with an error. A receive has no endpoint: the
// proxy checks PeerError of the connection's peer while it waits.
//
// Threading: not thread-safe; one thread at a time (the proxy's lock). UCX
// headers stay in ucx_net.cc.
#ifndef GPURUN_P2P_UCX_UCX_NET_H_
#define GPURUN_P2P_UCX_UCX_NET_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::p2p {

// One send or receive in flight. Owned by the caller; Start fills it, Test
// completes it (and releases the UCX request), Cancel abandons it.
struct UcxNetOp {
  void* request = nullptr;  // UCX request while in flight (null: completed inline, or idle)
  bool active = false;      // started and not yet completed by Test
  bool recv = false;
  int peer = -1;
  size_t bytes = 0;  // receive: the length that arrived
  uint64_t tag = 0;  // receive: the tag it carried (with a mask, the bits it ignored too)
};

class UcxNet {
 public:
  // Creates the context and worker (UCX reads its UCX_* variables).
  // `eager_bytes` > 0: messages up to that size go eager (UCX RNDV_THRESH),
  // unless UCX_RNDV_THRESH is set in the environment, which wins. A caller
  // whose every message has its receive posted beforehand saves the
  // rendezvous handshake (a round trip) that way. TCP's receive segment is
  // set as for UcxWire (ucx_config.h ApplyConfigDefaults).
  static StatusOr<std::unique_ptr<UcxNet>> Open(uint64_t eager_bytes = 0);
  // Close() if not called.
  ~UcxNet();
  UcxNet(const UcxNet&) = delete;
  UcxNet& operator=(const UcxNet&) = delete;

  // Whether this UCX moves CUDA device memory itself (a build with CUDA
  // support: UCP reports the CUDA memory type). Debian's does not.
  bool SupportsCudaMemory() const;

  // This worker's address, to give the peers.
  std::vector<std::byte> Address() const;
  // An endpoint to `peer` (any number the caller uses: comm ranks) from its
  // address; `name` says who it is in errors ("rank 3 (host h, pid 1)").
  Status Connect(int peer, const std::vector<std::byte>& address, std::string name);
  bool Connected(int peer) const;

  // Starts sending `bytes` at `data` (kept alive by the caller until done)
  // with `tag`; an error (peer failed, not connected) means nothing started.
  Status Send(int peer, uint64_t tag, const void* data, size_t bytes, UcxNetOp* op);
  // Posts a receive of at most `capacity` bytes with `tag` from anyone (the
  // tag names the sender), matching the bits set in `mask` (all: exactly
  // `tag`); `peer` is kept for errors.
  Status Recv(int peer, uint64_t tag, void* data, size_t capacity, UcxNetOp* op, uint64_t mask = ~uint64_t{0});
  // Whether `op` completed (then op->bytes holds a receive's length and op is
  // idle again); an error when it failed (truncation, peer failure) naming
  // the peer.
  Status Test(UcxNetOp* op, bool* done);
  // Abandons an operation in flight (bounded wait for UCX to release it).
  void Cancel(UcxNetOp* op);

  // One round of worker progress; returns whether anything happened.
  bool Progress();
  // OkStatus, or grRemoteError naming `peer` once its endpoint failed.
  Status PeerError(int peer) const;

  // Closes every endpoint (flushing those of live peers, bounded by
  // `wait_s` seconds in all, forcing the rest), destroys the worker and the
  // context. Operations still in flight must have been cancelled. Idempotent.
  void Close(double wait_s);

  struct Impl;

 private:
  explicit UcxNet(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_NET_H_
