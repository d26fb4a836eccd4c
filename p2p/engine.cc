// Engine construction, contexts, and starting sends and receives (see engine.h).
#include "p2p/engine.h"

#include <algorithm>

#include "p2p/loopback_wire.h"
#include "p2p/peer_monitor.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

Engine::Engine(int world_rank, std::vector<std::unique_ptr<Wire>> wires, std::vector<int> wire_of_peer,
               std::unique_ptr<PeerMonitor> monitor)
    : world_rank_(world_rank),
      wires_(std::move(wires)),
      loopback_(std::make_unique<LoopbackWire>(world_rank)),
      wire_of_peer_(std::move(wire_of_peer)),
      monitor_(std::move(monitor)) {
  loopback_->set_sink(this);
  for (auto& wire : wires_) wire->set_sink(this);
}

std::unique_ptr<Engine> Engine::CreateForTest(int world_rank, std::vector<std::unique_ptr<Wire>> wires,
                                              std::vector<int> wire_of_peer, const std::vector<PeerInfo>& peers) {
  std::unique_ptr<PeerMonitor> monitor = peers.empty() ? nullptr : PeerMonitor::Create(world_rank, peers);
  return std::unique_ptr<Engine>(new Engine(world_rank, std::move(wires), std::move(wire_of_peer), std::move(monitor)));
}

Engine::~Engine() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  // Unmatched messages first, while the wires can still release their senders.
  contexts_.clear();
  // Requests the wires no longer hold can go now; the others wait for the
  // callbacks that Shutdown runs.
  for (auto it = requests_.begin(); it != requests_.end();) {
    it = it->second->wire_busy ? std::next(it) : requests_.erase(it);
  }
  const Status why =
      InvalidUsage("the point-to-point engine of rank " + std::to_string(world_rank_) + " is shutting down");
  for (auto& wire : wires_) wire->Shutdown(why);
  reap_.clear();
  requests_.clear();
  wires_.clear();
}

Status Engine::AddContext(uint32_t context, std::vector<int> world_ranks) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (context > kMaxContext) {
    return InvalidArgument("context " + std::to_string(context) + " exceeds the largest context " +
                           std::to_string(kMaxContext));
  }
  for (int w : world_ranks) {
    if (w < 0 || w >= static_cast<int>(wire_of_peer_.size())) {
      return InvalidArgument("context " + std::to_string(context) + ": member world rank " + std::to_string(w) +
                             " outside a job of " + std::to_string(wire_of_peer_.size()));
    }
  }
  ContextState& state = contexts_[context];
  if (state.declared) return InvalidUsage("context " + std::to_string(context) + " is already in use");
  state.declared = true;
  state.members = std::move(world_ranks);
  return OkStatus();
}

Status Engine::RemoveContext(uint32_t context) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = contexts_.find(context);
  if (it == contexts_.end() || !it->second.declared) {
    return InvalidArgument("context " + std::to_string(context) + " is not in use");
  }
  const auto outstanding = std::count_if(requests_.begin(), requests_.end(), [&](const auto& entry) {
    return entry.second->context == context && !entry.second->released;
  });
  if (outstanding > 0) {
    return InvalidUsage(std::to_string(outstanding) + " request(s) on context " + std::to_string(context) +
                        " have not been completed with grWait/grTest");
  }
  if (it->second.queue.unexpected_count() > 0) {
    GR_LOG(Warn, P2p) << "dropping " << it->second.queue.unexpected_count() << " unreceived message(s) of context "
                      << context << " as its communicator is freed";
  }
  contexts_.erase(it);
  return OkStatus();
}

StatusOr<Request*> Engine::Isend(const SendArgs& args) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  GR_RETURN_IF_ERROR(CheckSend(args));
  Request* r = NewRequest();
  r->kind = RequestKind::kSend;
  r->what = args.what;
  r->context = args.context;
  r->peer = args.dest;
  r->peer_world = args.dest_world;
  r->tag = args.tag;
  r->data = const_cast<void*>(args.data);
  r->bytes = args.bytes;
  if (auto dead = failed_.find(args.dest_world); dead != failed_.end()) {
    r->Complete(dead->second);
    return r;
  }
  const MatchHeader header{args.context, args.source, args.tag, args.bytes};
  r->wire_busy = true;
  Status sent = WireOf(args.dest_world)->Send(args.dest_world, header, args.data, [this, r](const Status& result) {
    OnSendDone(r, result);
  });
  if (!sent.ok()) {
    // Per wire.h, a failed Send never calls `done`: nobody else holds r.
    sent = sent.WithContext(r->Describe());
    requests_.erase(r);
    return sent;
  }
  return r;
}

StatusOr<Request*> Engine::Irecv(const RecvArgs& args) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  GR_RETURN_IF_ERROR(CheckRecv(args));
  Request* r = NewRequest();
  r->kind = RequestKind::kRecv;
  r->what = args.what;
  r->context = args.context;
  r->peer = args.source;
  r->peer_world = args.source == GR_ANY_SOURCE ? -1 : args.source_world;
  r->tag = args.tag;
  r->data = args.data;
  r->bytes = args.capacity;
  r->type_size = args.type_size;
  r->status = EmptyStatus();
  ContextState& state = contexts_[args.context];
  if (std::optional<Unexpected> message = state.queue.TakeUnexpected(args.source, args.tag)) {
    Consume(r, std::move(*message));
    return r;
  }
  if (Status dead = DeadSourceError(state, args.source, args.source_world); !dead.ok()) {
    r->Complete(dead);
    return r;
  }
  state.queue.Post(r);
  r->posted = true;
  return r;
}

bool Engine::IsLive(const Request* request) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  auto it = requests_.find(request);
  return it != requests_.end() && !it->second->released;
}

const char* Engine::WireFor(int world_peer) const {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (world_peer < 0 || world_peer >= static_cast<int>(wire_of_peer_.size())) return "none";
  return WireOf(world_peer)->name();
}

Request* Engine::NewRequest() {
  auto owned = std::make_unique<Request>();
  Request* r = owned.get();
  requests_.emplace(r, std::move(owned));
  return r;
}

void Engine::Release(Request* request) {
  request->released = true;
  if (request->posted) {
    contexts_[request->context].queue.Unpost(request);
    request->posted = false;
  }
  if (!request->wire_busy) requests_.erase(request);
}

void Engine::ReapLocked() {
  for (Request* r : reap_) requests_.erase(r);
  reap_.clear();
}

Wire* Engine::WireOf(int world_peer) const {
  const int index = world_peer == world_rank_ ? -1 : wire_of_peer_[world_peer];
  return index < 0 ? loopback_.get() : wires_[index].get();
}

Status Engine::CheckSend(const SendArgs& a) const {
  const int size = static_cast<int>(wire_of_peer_.size());
  if (a.dest_world < 0 || a.dest_world >= size) {
    return InvalidArgument(std::string(a.what) + ": destination world rank " + std::to_string(a.dest_world) +
                           " outside a job of " + std::to_string(size));
  }
  if (a.tag < 0 || a.tag > kMaxTag) return InvalidArgument(std::string(a.what) + ": bad tag " + std::to_string(a.tag));
  if (a.context > kMaxContext) return InvalidArgument(std::string(a.what) + ": context out of range");
  if (a.data == nullptr && a.bytes > 0) return InvalidArgument(std::string(a.what) + ": null buffer");
  const int index = a.dest_world == world_rank_ ? -1 : wire_of_peer_[a.dest_world];
  if (a.dest_world != world_rank_ && (index < 0 || index >= static_cast<int>(wires_.size()))) {
    return InternalError(std::string(a.what) + ": no wire reaches world rank " + std::to_string(a.dest_world));
  }
  return OkStatus();
}

Status Engine::CheckRecv(const RecvArgs& a) const {
  auto it = contexts_.find(a.context);
  if (it == contexts_.end() || !it->second.declared) {
    return InvalidArgument(std::string(a.what) + ": context " + std::to_string(a.context) + " is not in use");
  }
  const std::vector<int>& members = it->second.members;
  if (a.source != GR_ANY_SOURCE &&
      (a.source < 0 || a.source >= static_cast<int>(members.size()) || members[a.source] != a.source_world)) {
    return InvalidArgument(std::string(a.what) + ": source " + std::to_string(a.source) + " (world " +
                           std::to_string(a.source_world) + ") is not a member of context " +
                           std::to_string(a.context));
  }
  if (a.tag != GR_ANY_TAG && (a.tag < 0 || a.tag > kMaxTag)) {
    return InvalidArgument(std::string(a.what) + ": bad tag " + std::to_string(a.tag));
  }
  if (a.data == nullptr && a.capacity > 0) return InvalidArgument(std::string(a.what) + ": null buffer");
  return OkStatus();
}

}  // namespace gpurun::p2p
