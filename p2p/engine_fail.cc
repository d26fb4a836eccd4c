// Peer failures and cancellation (see engine.h for which operations a peer's
// death fails). Every function here but CancelAll runs with the lock held
// (OnPeerFailed is a wire callback: wires call back only from inside the
// engine's calls).
#include <algorithm>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/base/log.h"

namespace gpurun::p2p {

void Engine::OnPeerFailed(int world_peer, const Status& why) {
  FailPeerLocked(world_peer, why.ok() ? RemoteError("rank " + std::to_string(world_peer) + " failed") : why);
}

// Whether a pending `request` cannot complete now that world_peer is gone.
bool Engine::FailsWith(const Request& r, int world_peer) const {
  if (r.complete) return false;
  if (r.kind == RequestKind::kSend) return r.peer_world == world_peer;
  if (!r.posted) return r.matched_world == world_peer;  // its payload was coming from there
  if (r.peer != GR_ANY_SOURCE) return r.peer_world == world_peer;
  const ContextState* context = FindContext(r.context);
  if (context == nullptr) return false;
  const std::vector<int>& members = context->members;
  return std::find(members.begin(), members.end(), world_peer) != members.end();
}

void Engine::FailPeerLocked(int world_peer, const Status& why) {
  if (world_peer < 0 || world_peer >= static_cast<int>(wire_of_peer_.size()) || failed_.contains(world_peer)) {
    return;
  }
  failed_.emplace(world_peer, why);
  int failed_requests = 0;
  pool_.ForEachInUse([&](Request& r) {
    if (!FailsWith(r, world_peer)) return;
    if (r.posted) ContextOf(r.context).queue.Unpost(&r);
    r.Complete(why);  // a busy wire still calls back; the request stays until it does
    ++failed_requests;
  });
  GR_LOG(Warn, P2p) << why.message() << "; failing " << failed_requests << " pending point-to-point request(s)";
}

Status Engine::DeadSourceError(const ContextState& context, int source, int source_world) const {
  if (failed_.empty()) return OkStatus();
  if (source != GR_ANY_SOURCE) {
    auto it = failed_.find(source_world);
    return it == failed_.end() ? OkStatus() : it->second;
  }
  for (int member : context.members) {
    auto it = failed_.find(member);
    if (it != failed_.end()) return it->second;
  }
  return OkStatus();
}

Status Engine::PeerFailure(int world_peer) {
  Lock lock(mu_);
  GR_RETURN_IF_ERROR(ProgressLocked().status());
  auto it = failed_.find(world_peer);
  return it == failed_.end() ? OkStatus() : it->second;
}

void Engine::CancelLocked(Request* r, const Status& why) {
  if (r->complete) return;
  if (r->posted) ContextOf(r->context).queue.Unpost(r);
  r->Complete(why);
}

int Engine::CancelAll(const Status& why) {
  Lock lock(mu_);
  int cancelled = 0;
  pool_.ForEachInUse([&](Request& r) {
    if (r.complete) return;
    CancelLocked(&r, why);
    ++cancelled;
  });
  return cancelled;
}

}  // namespace gpurun::p2p
