// LoopbackWire: the engine's wire to this rank itself. Send hands the message
// to the sink at once (a posted receive gets the bytes straight from the send
// buffer, otherwise the engine copies them into the unexpected queue), then
// completes the send: a send to self never blocks, whatever its size.
#ifndef GPURUN_P2P_LOOPBACK_WIRE_H_
#define GPURUN_P2P_LOOPBACK_WIRE_H_

#include "p2p/wire.h"

namespace gpurun::p2p {

class LoopbackWire final : public Wire {
 public:
  explicit LoopbackWire(int world_rank) : world_rank_(world_rank) {}

  const char* name() const override { return "self"; }
  bool CarriesDeviceRendezvous() const override { return true; }
  bool Reaches(int world_peer) const override { return world_peer == world_rank_; }
  Status Send(int world_peer, const MatchHeader& header, const void* data, Completion done) override;
  bool TrySend(int world_peer, const MatchHeader& header, const void* data) override;
  StatusOr<int> Progress() override { return 0; }
  void Shutdown(const Status& /*why*/) override {}

 private:
  int world_rank_;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_LOOPBACK_WIRE_H_
