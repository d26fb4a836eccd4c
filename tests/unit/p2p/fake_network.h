// FakeNetwork: an in-memory network of N ranks for engine tests. Each rank
// gets a FakeWire (reaching every other rank) and an Engine over it. Safe to
// drive with one thread per rank: every rank has a locked mailbox, and a
// wire only delivers from its own mailbox inside its own Progress.
//
// Messages up to `eager_limit` bytes are copied at Send (which completes at
// once); larger ones reach the receiver as a PendingPayload that reads the
// sender's buffer on Fetch, and the send completes (in the sender's next
// Progress) only then — a rendezvous. With `async_fetch`, Fetch completes in
// the receiver's next Progress instead of inside Fetch. Kill(rank) makes every
// other rank's wire report OnPeerFailed(rank) at its next Progress and drop
// traffic to it.
#ifndef GPURUN_TESTS_UNIT_P2P_FAKE_NETWORK_H_
#define GPURUN_TESTS_UNIT_P2P_FAKE_NETWORK_H_

#include <cstddef>
#include <limits>
#include <memory>
#include <vector>

#include "p2p/engine.h"
#include "p2p/wire.h"
#include "runtime/context.h"

namespace gpurun::p2p::testing {

struct FakeOptions {
  size_t eager_limit = std::numeric_limits<size_t>::max();
  bool async_fetch = false;
  bool device_rendezvous = true;  // Wire::CarriesDeviceRendezvous (flagged messages always go eagerly)
};

class FakeNetwork {
 public:
  struct State;

  explicit FakeNetwork(int size, FakeOptions options = {});
  ~FakeNetwork();

  int size() const;
  std::unique_ptr<Wire> MakeWire(int rank);
  // An engine for `rank` whose one wire reaches every other rank, with the
  // world contexts 0 (members 0..size-1) declared.
  std::unique_ptr<Engine> MakeEngine(int rank, bool declare_world = true);
  void Kill(int rank, const Status& why);

 private:
  std::shared_ptr<State> state_;
};

// A Context::EngineFactory that builds engines over `net` (ranks by bootstrap rank).
Context::EngineFactory FakeEngineFactory(const std::shared_ptr<FakeNetwork>& net);

}  // namespace gpurun::p2p::testing

#endif  // GPURUN_TESTS_UNIT_P2P_FAKE_NETWORK_H_
