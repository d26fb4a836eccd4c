// Progress and the blocking and nonblocking completion calls: Wait, Test,
// WaitAny, WaitAll, Probe (see engine.h).
#include <sstream>
#include <unordered_set>

#include "p2p/backoff.h"
#include "p2p/engine.h"
#include "p2p/peer_monitor.h"
#include "p2p/request.h"
#include "runtime/base/param_table.h"

namespace gpurun::p2p {
namespace {

using Lock = std::lock_guard<std::recursive_mutex>;

// Passes over the wires after a peer death was seen, so that what the peer
// sent before it died is delivered before its receives are failed.
constexpr int kDrainPasses = 64;

std::string Seconds(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

// The error a request gets when the wait on it ended with `polled`.
Status ForRequest(const Status& polled, const Request& r) {
  if (polled.code() != grTimeout) return polled;
  return TimeoutError(r.Describe() + " timed out after " + Seconds(params::kTimeout.Get()) + " s");
}

Status NotLive() { return InvalidArgument("not a live request (already completed and freed, or never created)"); }

}  // namespace

StatusOr<int> Engine::ProgressLocked() {
  std::vector<PeerMonitor::Death> deaths;
  if (monitor_) deaths = monitor_->Poll();
  const int passes = deaths.empty() ? 1 : kDrainPasses;
  int events = 0;
  for (int pass = 0; pass < passes; ++pass) {
    int n = 0;
    for (auto& wire : wires_) {
      StatusOr<int> handled = wire->Progress();
      if (!handled.ok()) return handled.status().WithContext(std::string(wire->name()) + " wire");
      n += *handled;
    }
    events += n;
    if (n == 0) break;
  }
  for (const PeerMonitor::Death& death : deaths) FailPeerLocked(death.rank, death.why);
  ReapLocked();
  return events + static_cast<int>(deaths.size());
}

Status Engine::PollUntil(const std::function<bool()>& done, const std::function<std::string()>& what) {
  const double timeout_s = params::kTimeout.Get();
  const auto start = std::chrono::steady_clock::now();
  Backoff backoff = Backoff::FromParams();
  for (;;) {
    {
      Lock lock(mu_);
      if (done()) return OkStatus();
      GR_ASSIGN_OR_RETURN(int events, ProgressLocked());
      if (done()) return OkStatus();
      if (events > 0) backoff.Reset();
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      if (timeout_s > 0 && waited.count() >= timeout_s) {
        return TimeoutError(what() + " timed out after " + Seconds(timeout_s) + " s");
      }
    }
    backoff.Pause();
  }
}

void Engine::Finish(Request* r, grStatus_t* status) {
  if (status != nullptr) *status = r->kind == RequestKind::kRecv ? r->status : EmptyStatus(r->error.code());
  Release(r);
}

Status Engine::Wait(Request* r, grStatus_t* status) {
  if (!IsLive(r)) return NotLive();
  Status polled = PollUntil([r] { return r->complete; }, [r] { return r->Describe(); });
  Lock lock(mu_);
  if (!polled.ok()) CancelLocked(r, ForRequest(polled, *r));
  Status result = r->error;
  Finish(r, status);
  return result;
}

Status Engine::Test(Request* r, bool* done, grStatus_t* status) {
  Lock lock(mu_);
  if (!IsLive(r)) return NotLive();
  if (!r->complete) GR_RETURN_IF_ERROR(ProgressLocked().status());
  *done = r->complete;
  if (!r->complete) return OkStatus();
  Status result = r->error;
  Finish(r, status);
  return result;
}

Status Engine::WaitAny(std::span<Request*> requests, int* index, grStatus_t* status) {
  *index = -1;
  {
    Lock lock(mu_);
    int live = 0;
    for (Request* r : requests) {
      if (r == nullptr) continue;
      if (!IsLive(r)) return NotLive();
      ++live;
    }
    if (live == 0) {
      if (status != nullptr) *status = EmptyStatus();
      return OkStatus();
    }
  }
  int found = -1;
  auto any_done = [&] {
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i] != nullptr && requests[i]->complete) {
        found = static_cast<int>(i);
        return true;
      }
    }
    return false;
  };
  auto what = [&] {
    for (Request* r : requests) {
      if (r != nullptr) return "waiting for any of several requests, the first " + r->Describe() + ",";
    }
    return std::string("waiting for any request");
  };
  Status polled = PollUntil(any_done, what);
  Lock lock(mu_);
  if (!polled.ok()) {
    for (Request*& r : requests) {
      if (r == nullptr) continue;
      CancelLocked(r, ForRequest(polled, *r));
      Finish(r, nullptr);
      r = nullptr;
    }
    return polled;
  }
  *index = found;
  Status result = requests[found]->error;
  Finish(requests[found], status);
  requests[found] = nullptr;
  return result;
}

Status Engine::WaitAll(std::span<Request*> requests, grStatus_t* statuses) {
  {
    Lock lock(mu_);
    std::unordered_set<const Request*> seen;
    for (Request* r : requests) {
      if (r == nullptr) continue;
      if (!IsLive(r)) return NotLive();
      if (!seen.insert(r).second) return InvalidArgument("the same request is listed twice");
    }
  }
  auto first_pending = [&]() -> Request* {
    for (Request* r : requests) {
      if (r != nullptr && !r->complete) return r;
    }
    return nullptr;
  };
  const Status polled =
      PollUntil([&] { return first_pending() == nullptr; }, [&] { return first_pending()->Describe(); });
  Lock lock(mu_);
  Status first_error;
  for (size_t i = 0; i < requests.size(); ++i) {
    Request*& r = requests[i];
    if (r == nullptr) {
      if (statuses != nullptr) statuses[i] = EmptyStatus();
      continue;
    }
    if (!polled.ok()) CancelLocked(r, ForRequest(polled, *r));
    if (first_error.ok() && !r->error.ok()) first_error = r->error;
    Finish(r, statuses == nullptr ? nullptr : &statuses[i]);
    r = nullptr;
  }
  return first_error;
}

Status Engine::Probe(uint32_t context, int source, int tag, bool block, bool* found, grStatus_t* status,
                     const char* what) {
  int source_world = -1;
  {
    Lock lock(mu_);
    auto it = contexts_.find(context);
    if (it == contexts_.end() || !it->second.declared) {
      return InvalidArgument(std::string(what) + ": context " + std::to_string(context) + " is not in use");
    }
    const std::vector<int>& members = it->second.members;
    if (source != GR_ANY_SOURCE && (source < 0 || source >= static_cast<int>(members.size()))) {
      return InvalidArgument(std::string(what) + ": source " + std::to_string(source) + " is not a member");
    }
    if (source != GR_ANY_SOURCE) source_world = members[source];
  }
  grStatus_t hit{};
  bool matched = false;
  Status dead;
  auto look = [&] {
    ContextState& state = contexts_[context];
    if (const Unexpected* m = state.queue.PeekUnexpected(source, tag)) {
      const size_t bytes = m->header.bytes;
      hit = grStatus_t{m->header.source, m->header.tag, grSuccess, bytes, bytes};
      matched = true;
      return true;
    }
    dead = DeadSourceError(state, source, source_world);
    return !dead.ok();
  };
  Status polled;
  if (block) {
    polled = PollUntil(look, [&] { return DescribeOperation(what, false, source, source_world, tag, context); });
  } else {
    Lock lock(mu_);
    polled = ProgressLocked().status();
    if (polled.ok()) look();
  }
  GR_RETURN_IF_ERROR(polled);
  if (!dead.ok() && !matched)
    return dead.WithContext(DescribeOperation(what, false, source, source_world, tag, context));
  *found = matched;
  if (matched && status != nullptr) *status = hit;
  return OkStatus();
}

}  // namespace gpurun::p2p
