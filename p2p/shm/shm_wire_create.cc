// ShmWire::Create: segment creation, endpoint exchange, mapping, CMA probe,
// early unlink (see shm_wire.h).
//
//   1. create our segment (inbound rings), publish {name, address, reach}
//   2. AllGather; any rank's failure → every rank fails here
//   3. map each peer's segment, find our ring there, probe CMA
//   4. AllGather of each rank's result: afterwards every peer has mapped our
//      segment, so we unlink it whatever the outcome
#include <algorithm>
#include <set>

#include "p2p/shm/shm_cma.h"
#include "p2p/shm/shm_exchange.h"
#include "p2p/shm/shm_layout.h"
#include "p2p/shm/shm_wire.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::p2p {

using shm::ShmEndpoint;
using shm::ShmPeer;

namespace {
// FRAG payloads above this gain nothing and keep more of the ring busy.
constexpr uint64_t kMaxFragBytes = (uint64_t{256} << 10) - sizeof(shm::CellHeader);

std::string RankText(int rank) { return "rank " + std::to_string(rank); }
}  // namespace

class ShmWireBuilder {
 public:
  ShmWireBuilder(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers, const std::vector<int>& reach)
      : bootstrap_(bootstrap), id_(bootstrap.identity()), peers_(peers), reach_(reach) {}

  StatusOr<std::unique_ptr<ShmWire>> Build();

 private:
  Status CheckArguments() const;
  Status CreateOwnSegment();
  StatusOr<std::vector<ShmEndpoint>> ExchangeEndpoints(const Status& local);
  Status Connect(const std::vector<ShmEndpoint>& endpoints);
  Status ConnectPeer(ShmPeer& peer, const ShmEndpoint& theirs);
  Status ChooseCma(ShmPeer& peer, uint64_t probe_address) const;
  Status ExchangeResults(const Status& local);
  void LogSummary() const;

  Bootstrap& bootstrap_;
  const RankIdentity& id_;
  const std::vector<PeerInfo>& peers_;
  const std::vector<int>& reach_;
  std::unique_ptr<ShmWire> wire_;
};

StatusOr<std::unique_ptr<ShmWire>> ShmWire::Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                                   const std::vector<int>& reach) {
  return ShmWireBuilder(bootstrap, peers, reach).Build();
}

StatusOr<std::unique_ptr<ShmWire>> ShmWireBuilder::Build() {
  wire_.reset(new ShmWire(id_.size));
  Status local = CheckArguments();
  if (local.ok()) local = CreateOwnSegment();
  GR_ASSIGN_OR_RETURN(std::vector<ShmEndpoint> endpoints, ExchangeEndpoints(local));
  const Status connected = Connect(endpoints);
  const Status all = ExchangeResults(connected);
  if (Status unlinked = wire_->own_.Unlink(); !unlinked.ok()) GR_LOG(Warn, P2p) << unlinked.ToString();
  GR_RETURN_IF_ERROR(all);
  LogSummary();
  return std::move(wire_);
}

Status ShmWireBuilder::CheckArguments() const {
  if (static_cast<int>(peers_.size()) != id_.size) {
    return InvalidArgument("shm wire: peer table has " + std::to_string(peers_.size()) + " entries for " +
                           std::to_string(id_.size) + " ranks");
  }
  std::set<int> seen;
  for (int r : reach_) {
    if (r < 0 || r >= id_.size || r == id_.rank || !seen.insert(r).second) {
      return InvalidArgument("shm wire: bad rank " + std::to_string(r) + " in the reach list of " + RankText(id_.rank) +
                             " (out of range, itself, or repeated)");
    }
  }
  return OkStatus();
}

Status ShmWireBuilder::CreateOwnSegment() {
  wire_->peers_.resize(reach_.size());
  if (reach_.empty()) return OkStatus();
  const auto eager = static_cast<uint64_t>(params::kShmEagerLimit.Get());
  const uint64_t capacity = shm::RingCapacityFor(eager);
  const auto rings = static_cast<uint32_t>(reach_.size());
  GR_ASSIGN_OR_RETURN(
      wire_->own_, shm::ShmSegment::Create(ShmSegmentName(id_.job_id, id_.rank), shm::SegmentBytes(rings, capacity)));
  auto* header = reinterpret_cast<shm::SegmentHeader*>(wire_->own_.data());
  *header = shm::SegmentHeader{shm::kSegmentMagic, shm::kSegmentVersion, rings, capacity};
  for (uint32_t i = 0; i < rings; ++i) {
    wire_->peers_[i].in = shm::RingConsumer(shm::RingAt(wire_->own_.data(), i, capacity));
    wire_->peers_[i].share_in = shm::ShareAt(wire_->own_.data(), i, capacity);
  }
  wire_->own_.Prefault(0, wire_->own_.size());
  return OkStatus();
}

StatusOr<std::vector<ShmEndpoint>> ShmWireBuilder::ExchangeEndpoints(const Status& local) {
  ShmEndpoint mine;
  if (local.ok()) {
    mine.segment = wire_->own_.name();
    mine.header_address = reinterpret_cast<uint64_t>(wire_->own_.data());
    mine.reach.assign(reach_.begin(), reach_.end());
  } else {
    mine.error = local.ToString();
  }
  GR_ASSIGN_OR_RETURN(auto blobs, bootstrap_.AllGather(shm::EncodeEndpoint(mine)));
  if (!local.ok()) return local;
  std::vector<ShmEndpoint> endpoints;
  for (size_t r = 0; r < blobs.size(); ++r) {
    GR_ASSIGN_OR_RETURN(ShmEndpoint e, shm::DecodeEndpoint(blobs[r]));
    if (!e.error.empty()) {
      return RemoteError("shm wire setup failed on " + RankText(static_cast<int>(r)) + ": " + e.error);
    }
    endpoints.push_back(std::move(e));
  }
  return endpoints;
}

Status ShmWireBuilder::Connect(const std::vector<ShmEndpoint>& endpoints) {
  for (size_t i = 0; i < reach_.size(); ++i) {
    ShmPeer& peer = wire_->peers_[i];
    peer.world_rank = reach_[i];
    GR_RETURN_IF_ERROR(ConnectPeer(peer, endpoints[reach_[i]]));
    wire_->peer_index_[reach_[i]] = static_cast<int>(i);
  }
  return OkStatus();
}

Status ShmWireBuilder::ConnectPeer(ShmPeer& peer, const ShmEndpoint& theirs) {
  const std::string who = RankText(peer.world_rank);
  const auto mine = std::find(theirs.reach.begin(), theirs.reach.end(), id_.rank);
  if (mine == theirs.reach.end()) {
    return InvalidArgument("shm wire: " + RankText(id_.rank) + " reaches " + who + " but " + who +
                           " does not reach it (reach lists must be symmetric)");
  }
  GR_ASSIGN_OR_RETURN(peer.remote, shm::ShmSegment::Open(theirs.segment, shm::kHeaderBytes));
  const auto* header = reinterpret_cast<const shm::SegmentHeader*>(peer.remote.data());
  const uint64_t capacity = header->ring_capacity;
  const bool sane = header->magic == shm::kSegmentMagic && header->version == shm::kSegmentVersion &&
                    header->num_rings == theirs.reach.size() && capacity >= 256 && (capacity & (capacity - 1)) == 0 &&
                    peer.remote.size() >= shm::SegmentBytes(header->num_rings, capacity);
  if (!sane) return InternalError("shm wire: " + who + "'s segment " + theirs.segment + " has an unexpected layout");
  const auto ring = static_cast<uint32_t>(mine - theirs.reach.begin());
  peer.out = shm::RingProducer(shm::RingAt(peer.remote.data(), ring, capacity));
  peer.share_out = shm::ShareAt(peer.remote.data(), ring, capacity);
  // Only our area: the owner maps the rest. (No rank sends before every rank is done here.)
  peer.remote.Prefault(shm::AreaOffset(ring, capacity), shm::AreaBytes(capacity));
  const auto eager = static_cast<uint64_t>(params::kShmEagerLimit.Get());
  peer.eager_limit = std::min(eager, shm::MaxCellPayload(capacity));
  peer.frag_bytes = std::min(kMaxFragBytes, shm::MaxCellPayload(capacity));
  peer.share_chunk = static_cast<uint64_t>(params::kShmShareChunk.Get());
  peer.liveness = shm::PeerLiveness(peers_[peer.world_rank].pid);
  return ChooseCma(peer, theirs.header_address);
}

Status ShmWireBuilder::ChooseCma(ShmPeer& peer, uint64_t probe_address) const {
  const int64_t mode = params::kShmCma.Get();
  if (mode == params::kCmaOff) return OkStatus();
  const Status probe = shm::ProbeCma(peer.liveness.pid(), probe_address, shm::kSegmentMagic);
  peer.cma = probe.ok();
  if (probe.ok()) return OkStatus();
  if (mode == params::kCmaOn) {
    return Unsupported("GPURUN_SHM_CMA=on, but this process may not read " + RankText(peer.world_rank) +
                       " with process_vm_readv (" + probe.message() +
                       "); check ptrace permissions (kernel.yama.ptrace_scope, container seccomp/capabilities) "
                       "or set GPURUN_SHM_CMA=auto");
  }
  GR_LOG(Info, P2p) << "shm: process_vm_readv of " << RankText(peer.world_rank)
                    << " not permitted, using bounce buffers: " << probe.message();
  return OkStatus();
}

Status ShmWireBuilder::ExchangeResults(const Status& local) {
  const std::string text = local.ok() ? "" : local.ToString();
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  GR_ASSIGN_OR_RETURN(auto blobs, bootstrap_.AllGather(std::span<const std::byte>(p, text.size())));
  GR_RETURN_IF_ERROR(local);
  for (size_t r = 0; r < blobs.size(); ++r) {
    if (blobs[r].empty()) continue;
    const std::string theirs(reinterpret_cast<const char*>(blobs[r].data()), blobs[r].size());
    return RemoteError("shm wire setup failed on " + RankText(static_cast<int>(r)) + ": " + theirs);
  }
  return OkStatus();
}

void ShmWireBuilder::LogSummary() const {
  if (reach_.empty()) return;
  size_t cma = 0;
  for (const ShmPeer& peer : wire_->peers_) cma += peer.cma ? 1 : 0;
  const auto eager = static_cast<uint64_t>(params::kShmEagerLimit.Get());
  GR_LOG(Info, P2p) << "shm wire: " << RankText(id_.rank) << " reaches " << reach_.size() << " local peers; ring "
                    << (shm::RingCapacityFor(eager) >> 10) << " KiB, eager limit " << wire_->peers_.front().eager_limit
                    << " B, process_vm_readv for " << cma << " of " << reach_.size() << " peers";
}

}  // namespace gpurun::p2p
