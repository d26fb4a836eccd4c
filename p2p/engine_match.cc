// Arrivals and matching: wire callbacks, unexpected messages, payload fetches
// (see engine.h). Every function here runs with the engine lock held.
#include <algorithm>
#include <cstring>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

void Engine::OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  MatchHeader h = header;
  if (h.bytes != payload.size()) {
    GR_LOG(Warn, P2p) << "wire delivered " << payload.size() << " bytes for a message of " << h.bytes
                      << " from world rank " << world_source << "; using the delivered size";
    h.bytes = payload.size();
  }
  ContextState& state = contexts_[h.context];
  if (Request* r = state.queue.TakePosted(h)) {
    r->posted = false;
    r->matched_world = world_source;
    const size_t n = std::min<size_t>(h.bytes, r->bytes);
    if (n > 0) std::memcpy(r->data, payload.data(), n);
    r->CompleteReceive(h, n);
    return;
  }
  Unexpected message;
  message.world_source = world_source;
  message.header = h;
  message.data.assign(payload.begin(), payload.end());
  state.queue.Enqueue(std::move(message));
}

void Engine::OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  ContextState& state = contexts_[header.context];
  if (Request* r = state.queue.TakePosted(header)) {
    r->posted = false;
    r->matched_world = world_source;
    StartFetch(r, header, std::move(payload));
    return;
  }
  Unexpected message;
  message.world_source = world_source;
  message.header = header;
  message.pending = std::move(payload);
  state.queue.Enqueue(std::move(message));
}

void Engine::Consume(Request* r, Unexpected message) {
  r->matched_world = message.world_source;
  if (message.pending) {
    StartFetch(r, message.header, std::move(message.pending));
    return;
  }
  const size_t n = std::min<size_t>(message.header.bytes, r->bytes);
  if (n > 0) std::memcpy(r->data, message.data.data(), n);
  r->CompleteReceive(message.header, n);
}

void Engine::StartFetch(Request* r, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  const size_t n = std::min<size_t>(header.bytes, r->bytes);
  r->payload = std::move(payload);
  r->wire_busy = true;
  r->payload->Fetch(r->data, n, [this, r, header, n](const Status& result) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    r->wire_busy = false;
    if (!r->complete) {
      if (result.ok()) {
        r->CompleteReceive(header, n);
      } else {
        r->Complete(result);
      }
    }
    if (r->released) reap_.push_back(r);
  });
}

void Engine::OnSendDone(Request* r, const Status& result) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  r->wire_busy = false;
  if (!r->complete) r->Complete(result);
  if (r->released) reap_.push_back(r);
}

}  // namespace gpurun::p2p
