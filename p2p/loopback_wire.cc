// Self messages (see loopback_wire.h).
#include "p2p/loopback_wire.h"

namespace gpurun::p2p {

Status LoopbackWire::Send(int world_peer, const MatchHeader& header, const void* data, Completion done) {
  if (world_peer != world_rank_) {
    return InternalError("loopback wire of rank " + std::to_string(world_rank_) + " asked to send to rank " +
                         std::to_string(world_peer));
  }
  const auto* bytes = static_cast<const std::byte*>(data);
  sink_->OnEager(world_rank_, header, std::span<const std::byte>(bytes, header.bytes));
  done(OkStatus());
  return OkStatus();
}

bool LoopbackWire::TrySend(int world_peer, const MatchHeader& header, const void* data) {
  if (world_peer != world_rank_) return false;  // Send reports it
  sink_->OnEager(world_rank_, header, std::span<const std::byte>(static_cast<const std::byte*>(data), header.bytes));
  return true;
}

}  // namespace gpurun::p2p
