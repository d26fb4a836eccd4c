// Arrivals and matching: wire callbacks, unexpected messages, payload fetches
// (see engine.h). Every function here runs with the engine lock held (wires
// call back only from inside the engine's calls).
#include <algorithm>
#include <cstring>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

void Engine::OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) {
  if (header.flags != 0) {
    OnFlagged(world_source, header, payload);
    return;
  }
  MatchHeader h = header;
  if (h.bytes != payload.size()) {
    GR_LOG(Warn, P2p) << "wire delivered " << payload.size() << " bytes for a message of " << h.bytes
                      << " from world rank " << world_source << "; using the delivered size";
    h.bytes = payload.size();
  }
  const uint64_t sync = sync_notes_.empty() ? 0 : TakeSyncNote(world_source);
  ContextState& state = ContextOf(h.context);
  if (Request* r = state.queue.TakePosted(h)) {
    r->posted = false;
    r->matched_world = world_source;
    if (sync != 0) QueueFin(world_source, sync, grSuccess);
    const size_t n = std::min<size_t>(h.bytes, r->bytes);
    if (Status stored = StoreInto(r, payload.data(), n); !stored.ok()) {
      r->Complete(stored);
      return;
    }
    r->CompleteReceive(h, n);
    return;
  }
  Unexpected& message = state.queue.EnqueueNew();  // recycled: no allocation in the steady state
  message.world_source = world_source;
  message.header = h;
  message.data.assign(payload.begin(), payload.end());
  message.sync_id = sync;
}

void Engine::OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  if (header.flags != 0 && !payload->FetchesIntoDevice()) {
    // Flagged messages come eagerly (Wire::CarriesDeviceRendezvous); dropping
    // the payload releases the sender with an error.
    GR_LOG(Warn, P2p) << "dropping a flagged message (flags " << header.flags << ") from world rank " << world_source
                      << " that its wire delivered as a rendezvous";
    return;
  }
  const uint64_t sync = sync_notes_.empty() || header.flags != 0 ? 0 : TakeSyncNote(world_source);
  ContextState& state = ContextOf(header.context);
  if (Request* r = state.queue.TakePosted(header)) {
    r->posted = false;
    r->matched_world = world_source;
    if (sync != 0) QueueFin(world_source, sync, grSuccess);
    StartFetch(r, header, std::move(payload));
    return;
  }
  Unexpected& message = state.queue.EnqueueNew();
  message.world_source = world_source;
  message.header = header;
  message.pending = std::move(payload);
  message.sync_id = sync;
}

// A blocking receive whose message is here already as an eager payload that
// fits: copied and done without a request. False (nothing done) otherwise.
bool Engine::TryReceiveArrived(ContextState& state, const RecvArgs& args, grStatus_t* status) {
  if (state.queue.unexpected_count() == 0) return false;
  const Unexpected* m = state.queue.FindUnexpected(args.source, args.tag);
  if (m == nullptr || m->pending != nullptr || m->header.bytes > args.capacity) return false;
  const size_t n = m->header.bytes;
  if (n > 0) std::memcpy(args.data, m->data.data(), n);
  if (status != nullptr) {
    const size_t count = args.type_size == 0 ? 0 : n / args.type_size;
    *status = grStatus_t{m->header.source, m->header.tag, grSuccess, n, count};
  }
  const int world_source = m->world_source;
  const uint64_t sync_id = m->sync_id;
  state.queue.Drop(m);
  if (sync_id != 0) {
    QueueFin(world_source, sync_id, grSuccess);
    FlushFins();  // no wire callback is running here
  }
  return true;
}

void Engine::Consume(Request* r, Unexpected& message) {
  r->matched_world = message.world_source;
  if (message.sync_id != 0) QueueFin(message.world_source, message.sync_id, grSuccess);
  if (message.pending) {
    StartFetch(r, message.header, std::move(message.pending));
    return;
  }
  const size_t n = std::min<size_t>(message.header.bytes, r->bytes);
  if (Status stored = StoreInto(r, message.data.data(), n); !stored.ok()) {
    r->Complete(stored);
    return;
  }
  r->CompleteReceive(message.header, n);
}

void Engine::StartFetch(Request* r, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  r->matched = header;
  r->payload = std::move(payload);
  r->wire_busy = true;
  const size_t n = std::min<size_t>(header.bytes, r->bytes);
  void* dst = r->data;
  if (r->device && n > 0 && !r->payload->FetchesIntoDevice()) {
    r->staging.reset(new std::byte[n]);  // uninitialised: the fetch writes all of it
    dst = r->staging.get();
  }
  // Two pointers: the completion fits std::function's inline storage.
  r->payload->Fetch(dst, n, [this, r](const Status& result) { OnFetchDone(r, result); });
}

void Engine::OnFetchDone(Request* r, const Status& result) {
  r->wire_busy = false;
  Status stored = result;
  if (r->staging != nullptr) {
    if (stored.ok() && !r->complete)
      stored = StoreInto(r, r->staging.get(), std::min<size_t>(r->matched.bytes, r->bytes));
    r->staging.reset();
  }
  if (!r->complete) {
    if (stored.ok()) {
      r->CompleteReceive(r->matched, std::min<size_t>(r->matched.bytes, r->bytes));
    } else {
      r->Complete(stored);
    }
  }
  if (r->released) reap_.push_back(r);
}

void Engine::OnSendDone(Request* r, const Status& result) {
  r->wire_busy = false;
  r->staging.reset();  // a staged GPU send's host copy (StageDeviceSend)
  // A device send completes when its DeviceFin comes (engine_device.cc).
  if (!r->complete && (r->device_send_id == 0 || !result.ok())) r->Complete(result);
  if (r->released) reap_.push_back(r);
}

}  // namespace gpurun::p2p
