// UcxWire: creation (collective address exchange) and the Wire entry points,
// which forward to UcxCore.
#include "p2p/ucx/ucx_wire.h"

#include <chrono>
#include <iomanip>

#include "p2p/ucx/ucx_core.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> HostsOf(const std::vector<PeerInfo>& peers, int size) {
  std::vector<std::string> hosts(size);
  for (const PeerInfo& peer : peers) {
    if (peer.rank >= 0 && peer.rank < size) hosts[peer.rank] = peer.host;
  }
  return hosts;
}

}  // namespace

StatusOr<std::unique_ptr<UcxWire>> UcxWire::Create(Bootstrap& bootstrap, const std::vector<PeerInfo>& peers,
                                                   const std::vector<int>& reach) {
  const auto start = std::chrono::steady_clock::now();
  const RankIdentity& id = bootstrap.identity();
  auto core = std::make_shared<UcxCore>(id.rank, HostsOf(peers, id.size));
  UcxSetupTimes times;
  const Status opened = core->Open(&times);
  if (!opened.ok()) GR_LOG(Warn, Net) << opened.message();

  // Take part in the exchange even after a local failure: an empty address
  // tells the peers that this rank has no UCX, instead of leaving them waiting.
  const auto exchange_start = std::chrono::steady_clock::now();
  std::vector<std::byte> mine;
  if (opened.ok()) mine = core->LocalAddress();
  GR_ASSIGN_OR_RETURN(std::vector<std::vector<std::byte>> addresses, bootstrap.AllGather(mine));
  times.exchange_s = SecondsSince(exchange_start);
  GR_RETURN_IF_ERROR(opened);
  if (static_cast<int>(addresses.size()) != id.size) {
    return InternalError("ucx: address exchange returned " + std::to_string(addresses.size()) + " entries for " +
                         std::to_string(id.size) + " ranks");
  }

  const auto connect_start = std::chrono::steady_clock::now();
  GR_RETURN_IF_ERROR(core->Connect(addresses, reach));
  times.connect_s = SecondsSince(connect_start);
  times.total_s = SecondsSince(start);
  GR_LOG(Info, Net) << std::fixed << std::setprecision(1) << "ucx: wire up in " << times.total_s * 1e3
                    << " ms (context " << times.init_s * 1e3 << " ms, worker " << times.worker_s * 1e3
                    << " ms, address exchange " << times.exchange_s * 1e3 << " ms, " << reach.size() << " endpoints "
                    << times.connect_s * 1e3 << " ms)";
  std::unique_ptr<UcxWire> wire(new UcxWire(std::move(core)));
  wire->times_ = times;
  return wire;
}

UcxWire::~UcxWire() { Shutdown(InternalError("ucx wire destroyed")); }

bool UcxWire::Reaches(int world_peer) const { return core_->Reaches(world_peer); }

Status UcxWire::Send(int world_peer, const MatchHeader& header, const void* data, Completion done) {
  return core_->Send(world_peer, header, data, std::move(done));
}

StatusOr<int> UcxWire::Progress() { return core_->Progress(sink_); }

void UcxWire::Shutdown(const Status& why) { core_->Close(why); }

}  // namespace gpurun::p2p
