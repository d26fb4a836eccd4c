// Engine construction, contexts, and starting sends and receives (see engine.h).
#include "p2p/engine.h"

#include <algorithm>

#include "p2p/loopback_wire.h"
#include "p2p/peer_monitor.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

Engine::Engine(int world_rank, std::vector<std::unique_ptr<Wire>> wires, std::vector<int> wire_of_peer,
               std::unique_ptr<PeerMonitor> monitor, bool shared_cores)
    : world_rank_(world_rank),
      wires_(std::move(wires)),
      loopback_(std::make_unique<LoopbackWire>(world_rank)),
      wire_of_peer_(std::move(wire_of_peer)),
      monitor_(std::move(monitor)),
      shared_cores_(shared_cores) {
  loopback_->set_sink(this);
  for (auto& wire : wires_) wire->set_sink(this);
}

std::unique_ptr<Engine> Engine::CreateForTest(int world_rank, std::vector<std::unique_ptr<Wire>> wires,
                                              std::vector<int> wire_of_peer, const std::vector<PeerInfo>& peers) {
  std::unique_ptr<PeerMonitor> monitor = peers.empty() ? nullptr : PeerMonitor::Create(world_rank, peers);
  return std::unique_ptr<Engine>(new Engine(world_rank, std::move(wires), std::move(wire_of_peer), std::move(monitor)));
}

Engine::~Engine() {
  Lock lock(mu_);
  // Unmatched messages first, while the wires can still release their senders.
  contexts_.clear();
  last_context_ = nullptr;
  // Payloads of requests the wires no longer hold can go now; the others
  // wait for the callbacks that Shutdown runs.
  pool_.ForEachInUse([](Request& r) {
    if (!r.wire_busy) r.payload.reset();
  });
  const Status why =
      InvalidUsage("the point-to-point engine of rank " + std::to_string(world_rank_) + " is shutting down");
  for (auto& wire : wires_) wire->Shutdown(why);
  reap_.clear();
  pool_.DropPayloads();  // before the wires that made them go
  wires_.clear();
}

Status Engine::AddContext(uint32_t context, std::vector<int> world_ranks) {
  Lock lock(mu_);
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
  Lock lock(mu_);
  auto it = contexts_.find(context);
  if (it == contexts_.end() || !it->second.declared) {
    return InvalidArgument("context " + std::to_string(context) + " is not in use");
  }
  size_t outstanding = 0;
  pool_.ForEachInUse([&](const Request& r) { outstanding += r.context == context && !r.released; });
  if (outstanding > 0) {
    return InvalidUsage(std::to_string(outstanding) + " request(s) on context " + std::to_string(context) +
                        " have not been completed with grWait/grTest");
  }
  if (it->second.queue.unexpected_count() > 0) {
    GR_LOG(Warn, P2p) << "dropping " << it->second.queue.unexpected_count() << " unreceived message(s) of context "
                      << context << " as its communicator is freed";
  }
  if (last_context_ == &it->second) last_context_ = nullptr;
  contexts_.erase(it);
  return OkStatus();
}

StatusOr<Request*> Engine::Isend(const SendArgs& args) {
  Lock lock(mu_);
  if (!SendValid(args)) return SendError(args);
  StatusOr<Request*> r = IsendLocked(args, IsDeviceData(args.data, args.bytes));
  if (!fins_out_.empty()) FlushFins();
  return r;
}

StatusOr<Request*> Engine::Irecv(const RecvArgs& args) {
  Lock lock(mu_);
  if (!RecvValid(args)) return RecvError(args);
  StatusOr<Request*> r = IrecvLocked(args, IsDeviceData(args.data, args.capacity));
  if (!fins_out_.empty()) FlushFins();
  return r;
}

Status Engine::Send(const SendArgs& args) {
  Lock lock(mu_);
  if (!SendValid(args)) return SendError(args);
  const bool device = IsDeviceData(args.data, args.bytes);
  if (!device && TrySendNow(args)) return OkStatus();
  GR_ASSIGN_OR_RETURN(Request * r, IsendLocked(args, device));
  return WaitLocked(lock, r, nullptr);
}

// A host send the wire takes at once (not to a failed peer). False: nothing sent.
bool Engine::TrySendNow(const SendArgs& args) {
  if (!failed_.empty() && failed_.contains(args.dest_world)) return false;
  const MatchHeader header{args.context, args.source, args.tag, 0, args.bytes};
  return WireOf(args.dest_world)->TrySend(args.dest_world, header, args.data);
}

Status Engine::StartSend(const SendArgs& args, Request** request) {
  *request = nullptr;
  Lock lock(mu_);
  if (!SendValid(args)) return SendError(args);
  const bool device = IsDeviceData(args.data, args.bytes);
  if (!device && TrySendNow(args)) return OkStatus();
  GR_ASSIGN_OR_RETURN(*request, IsendLocked(args, device));
  if (!fins_out_.empty()) FlushFins();
  return OkStatus();
}

Status Engine::Recv(const RecvArgs& args, grStatus_t* status) {
  Lock lock(mu_);
  if (!RecvValid(args)) return RecvError(args);
  const bool device = IsDeviceData(args.data, args.capacity);
  if (!device) {
    if (TryReceiveArrived(ContextOf(args.context), args, status)) return OkStatus();
    // One progress round before making a request: a message waiting in a
    // wire's inbound queue then arrives unexpected and is taken here (the
    // receive of a 2-rank exchange nearly always finds its message there).
    // Receives posted earlier still match first (OnEager).
    GR_ASSIGN_OR_RETURN(const int events, ProgressLocked());
    if (events > 0 && TryReceiveArrived(ContextOf(args.context), args, status)) return OkStatus();
  }
  GR_ASSIGN_OR_RETURN(Request * r, IrecvLocked(args, device));
  return WaitLocked(lock, r, status);
}

// Arguments checked by the caller; `device`: args.data is GPU memory.
StatusOr<Request*> Engine::IsendLocked(const SendArgs& args, bool device) {
  Request* r = NewRequest();
  r->kind = RequestKind::kSend;
  r->what = args.what;
  r->context = args.context;
  r->peer = args.dest;
  r->peer_world = args.dest_world;
  r->tag = args.tag;
  r->data = const_cast<void*>(args.data);
  r->bytes = args.bytes;
  if (!failed_.empty()) {
    if (auto dead = failed_.find(args.dest_world); dead != failed_.end()) {
      r->Complete(dead->second);
      return r;
    }
  }
  Wire* wire = WireOf(args.dest_world);
  const void* data = args.data;
  if (device) {
    if (wire->CarriesDeviceRendezvous()) return IsendDeviceLocked(r, args);
    StatusOr<std::unique_ptr<std::byte[]>> staged = StageDeviceSend(args);
    if (!staged.ok()) {
      Status error = staged.status().WithContext(r->Describe());
      pool_.Free(r);
      return error;
    }
    r->staging = std::move(staged).value();
    data = r->staging.get();
  }
  const MatchHeader header{args.context, args.source, args.tag, 0, args.bytes};
  if (wire->TrySend(args.dest_world, header, data)) {
    r->staging.reset();
    r->CompleteOk();
    return r;
  }
  r->wire_busy = true;
  Status sent = wire->Send(args.dest_world, header, data, [this, r](const Status& result) { OnSendDone(r, result); });
  if (!sent.ok()) {
    // Per wire.h, a failed Send never calls `done`: nobody else holds r.
    sent = sent.WithContext(r->Describe());
    r->wire_busy = false;
    pool_.Free(r);
    return sent;
  }
  return r;
}

// Arguments checked by the caller; `device`: args.data is GPU memory.
StatusOr<Request*> Engine::IrecvLocked(const RecvArgs& args, bool device) {
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
  r->device = device;
  r->status = EmptyStatus();
  ContextState& state = ContextOf(args.context);
  if (state.queue.unexpected_count() > 0) {
    if (Unexpected* message = state.queue.FindUnexpected(args.source, args.tag)) {
      Consume(r, *message);
      state.queue.Drop(message);
      return r;
    }
  }
  if (!failed_.empty()) {
    if (Status dead = DeadSourceError(state, args.source, args.source_world); !dead.ok()) {
      r->Complete(dead);
      return r;
    }
  }
  state.queue.Post(r);
  r->posted = true;
  return r;
}

StatusOr<Request*> Engine::Issend(const SendArgs& args) {
  Lock lock(mu_);
  if (!SendValid(args)) return SendError(args);
  StatusOr<Request*> r = IssendLocked(args);
  if (!fins_out_.empty()) FlushFins();  // a loopback message may have matched already
  return r;
}

// Arguments checked by the caller.
StatusOr<Request*> Engine::IssendLocked(const SendArgs& args) {
  Wire* wire = WireOf(args.dest_world);
  const bool device = IsDeviceData(args.data, args.bytes);
  if (device && wire->CarriesDeviceRendezvous()) {
    // The device rendezvous completes at the receiver's DeviceFin, after its pull.
    return IsendLocked(args, true);
  }
  if (!failed_.empty() && failed_.contains(args.dest_world)) return IsendLocked(args, false);  // fails at once
  // A GPU buffer for a host-only wire goes as a host copy, synchronous as any.
  std::unique_ptr<std::byte[]> staged;
  if (device) {
    StatusOr<std::unique_ptr<std::byte[]>> copy = StageDeviceSend(args);
    if (!copy.ok()) return copy.status().WithContext(std::string(args.what));
    staged = std::move(copy).value();
  }
  const void* data = device ? staged.get() : args.data;
  // The note first, so the receiver ties it to the message that follows.
  const uint64_t id = next_device_send_++;
  const MatchHeader note{args.context, args.source, args.tag, kFlagSyncNote, sizeof(uint64_t)};
  if (!wire->TrySend(args.dest_world, note, &id)) {
    auto kept = std::make_shared<uint64_t>(id);  // alive until the wire is done with it
    GR_RETURN_IF_ERROR(wire->Send(args.dest_world, note, kept.get(), [kept](const Status&) {})
                           .WithContext(std::string(args.what) + ": sync note"));
  }
  Request* r = NewRequest();
  r->kind = RequestKind::kSend;
  r->what = args.what;
  r->context = args.context;
  r->peer = args.dest;
  r->peer_world = args.dest_world;
  r->tag = args.tag;
  r->data = const_cast<void*>(args.data);
  r->bytes = args.bytes;
  r->device_send_id = id;  // completes at the receiver's DeviceFin of `id` (engine_device.cc)
  r->staging = std::move(staged);
  device_sends_[id] = r;
  const MatchHeader header{args.context, args.source, args.tag, 0, args.bytes};
  if (wire->TrySend(args.dest_world, header, data)) {
    r->staging.reset();
    return r;
  }
  r->wire_busy = true;
  Status sent = wire->Send(args.dest_world, header, data, [this, r](const Status& result) { OnSendDone(r, result); });
  if (!sent.ok()) {
    r->wire_busy = false;
    device_sends_.erase(id);
    r->device_send_id = 0;
    pool_.Free(r);
    return sent.WithContext(std::string(args.what));
  }
  return r;
}

Status Engine::Cancel(Request* request, bool* cancelled) {
  Lock lock(mu_);
  if (!IsLiveLocked(request)) {
    return InvalidArgument("not a live request (already completed and freed, or never created)");
  }
  *cancelled = false;
  if (request->kind != RequestKind::kRecv || !request->posted || request->complete) return OkStatus();
  Release(request);  // unposts and frees: no wire holds an unmatched receive
  *cancelled = true;
  return OkStatus();
}

uint64_t Engine::TakeSyncNote(int world_source) {
  auto it = sync_notes_.find(world_source);
  if (it == sync_notes_.end()) return 0;
  const uint64_t id = it->second;
  sync_notes_.erase(it);
  return id;
}

bool Engine::IsLive(const Request* request) const {
  Lock lock(mu_);
  return IsLiveLocked(request);
}

const char* Engine::WireFor(int world_peer) const {
  Lock lock(mu_);
  if (world_peer < 0 || world_peer >= static_cast<int>(wire_of_peer_.size())) return "none";
  return WireOf(world_peer)->name();
}

void Engine::Release(Request* request) {
  request->released = true;
  if (request->device_send_id != 0) device_sends_.erase(request->device_send_id);
  if (request->posted) {
    ContextOf(request->context).queue.Unpost(request);
    request->posted = false;
  }
  if (!request->wire_busy) pool_.Free(request);
}

void Engine::ReapLocked() {
  for (Request* r : reap_) pool_.Free(r);
  reap_.clear();
}

const Engine::ContextState* Engine::FindContextSlow(uint32_t context) const {
  auto it = contexts_.find(context);
  return it == contexts_.end() ? nullptr : &it->second;
}

Engine::ContextState& Engine::ContextOfSlow(uint32_t context) {
  last_context_ = &contexts_[context];  // map nodes stay put: the pointer survives inserts
  last_context_id_ = context;
  return *last_context_;
}

bool Engine::SendValid(const SendArgs& a) const {
  if (a.dest_world < 0 || a.dest_world >= static_cast<int>(wire_of_peer_.size())) return false;
  if (a.tag < 0 || a.tag > kMaxTag || a.context > kMaxContext || (a.data == nullptr && a.bytes > 0)) return false;
  const int index = a.dest_world == world_rank_ ? -1 : wire_of_peer_[a.dest_world];
  return a.dest_world == world_rank_ || (index >= 0 && index < static_cast<int>(wires_.size()));
}

Status Engine::SendError(const SendArgs& a) const {
  const int size = static_cast<int>(wire_of_peer_.size());
  if (a.dest_world < 0 || a.dest_world >= size) {
    return InvalidArgument(std::string(a.what) + ": destination world rank " + std::to_string(a.dest_world) +
                           " outside a job of " + std::to_string(size));
  }
  if (a.tag < 0 || a.tag > kMaxTag) return InvalidArgument(std::string(a.what) + ": bad tag " + std::to_string(a.tag));
  if (a.context > kMaxContext) return InvalidArgument(std::string(a.what) + ": context out of range");
  if (a.data == nullptr && a.bytes > 0) return InvalidArgument(std::string(a.what) + ": null buffer");
  // SendValid failed on the wire table, the only check left.
  return InternalError(std::string(a.what) + ": no wire reaches world rank " + std::to_string(a.dest_world));
}

bool Engine::RecvValid(const RecvArgs& a) const {
  const ContextState* state = FindContext(a.context);
  if (state == nullptr || !state->declared) return false;
  const std::vector<int>& members = state->members;
  if (a.source != GR_ANY_SOURCE &&
      (a.source < 0 || a.source >= static_cast<int>(members.size()) || members[a.source] != a.source_world)) {
    return false;
  }
  return (a.tag == GR_ANY_TAG || (a.tag >= 0 && a.tag <= kMaxTag)) && (a.data != nullptr || a.capacity == 0);
}

Status Engine::RecvError(const RecvArgs& a) const {
  const ContextState* state = FindContext(a.context);
  if (state == nullptr || !state->declared) {
    return InvalidArgument(std::string(a.what) + ": context " + std::to_string(a.context) + " is not in use");
  }
  const std::vector<int>& members = state->members;
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
  return InternalError(std::string(a.what) + ": arguments rejected for no known reason");
}

}  // namespace gpurun::p2p
