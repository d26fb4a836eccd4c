// Progress and the blocking and nonblocking completion calls: Wait, Test,
// WaitAny, WaitAll, Probe (see engine.h).
#include <algorithm>
#include <sstream>

#include "p2p/backoff.h"
#include "p2p/engine.h"
#include "p2p/peer_monitor.h"
#include "p2p/request.h"
#include "runtime/base/param_table.h"

namespace gpurun::p2p {
namespace {

// Passes over the wires after a peer death was seen, so that what the peer
// sent before it died is delivered before its receives are failed.
constexpr int kDrainPasses = 64;
// Spinning polls of a blocking call between looks at the clock for GPURUN_TIMEOUT.
constexpr uint32_t kPollsPerTimeoutCheck = 64;

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
  if (monitor_ != nullptr && monitor_->Due()) {
    std::vector<PeerMonitor::Death> deaths = monitor_->Poll();
    if (!deaths.empty()) return ProgressAfterDeaths(deaths);
  }
  int events = 0;
  for (auto& wire : wires_) {
    StatusOr<int> handled = wire->Progress();
    if (!handled.ok()) return handled.status().WithContext(std::string(wire->name()) + " wire");
    events += *handled;
  }
  if (!fins_out_.empty()) FlushFins();
  if (!reap_.empty()) ReapLocked();
  return events;
}

StatusOr<int> Engine::ProgressAfterDeaths(const std::vector<PeerMonitor::Death>& deaths) {
  int events = 0;
  for (int pass = 0; pass < kDrainPasses; ++pass) {
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

// Polls until done() (called with the lock held); the lock is released only
// during the pauses between polls. The parameters are read, and the clock
// started, only once the first poll was not enough. `bytes`: the size of the
// message waited for (Backoff::ForWait).
template <typename Done, typename What>
Status Engine::PollUntil(Lock& lock, uint64_t bytes, Done&& done, What&& what) {
  if (done()) return OkStatus();
  GR_ASSIGN_OR_RETURN(int events, ProgressLocked());
  if (done()) return OkStatus();
  const double timeout_s = params::kTimeout.Get();
  const auto start = Backoff::Clock::now();
  Backoff backoff(Backoff::ForWait(Backoff::PolicyFromParams(), bytes, shared_cores_));
  for (uint32_t polls = 1;; ++polls) {
    if (events > 0) backoff.Reset();
    // Spinning polls are cheap, so look at the clock every so many; once
    // the pauses yield or sleep, at every one.
    const bool look = polls % kPollsPerTimeoutCheck == 0 || backoff.phase() != Backoff::Phase::kSpin;
    if (look && timeout_s > 0) {
      const std::chrono::duration<double> waited = Backoff::Clock::now() - start;
      if (waited.count() >= timeout_s) return TimeoutError(what() + " timed out after " + Seconds(timeout_s) + " s");
    }
    lock.unlock();
    backoff.Pause();
    lock.lock();
    GR_ASSIGN_OR_RETURN(events, ProgressLocked());
    if (done()) return OkStatus();
  }
}

void Engine::Finish(Request* r, grStatus_t* status) {
  if (status != nullptr) *status = r->kind == RequestKind::kRecv ? r->status : EmptyStatus(r->error.code());
  Release(r);
}

Status Engine::WaitLocked(Lock& lock, Request* r, grStatus_t* status) {
  Status polled = PollUntil(
      lock, r->bytes, [r] { return r->complete; }, [r] { return r->Describe(); });
  if (!polled.ok()) CancelLocked(r, ForRequest(polled, *r));
  Status result = r->error;
  Finish(r, status);
  return result;
}

Status Engine::Wait(Request* r, grStatus_t* status) {
  Lock lock(mu_);
  if (!IsLiveLocked(r)) return NotLive();
  return WaitLocked(lock, r, status);
}

Status Engine::Test(Request* r, bool* done, grStatus_t* status) {
  Lock lock(mu_);
  if (!IsLiveLocked(r)) return NotLive();
  if (!r->complete) GR_RETURN_IF_ERROR(ProgressLocked().status());
  *done = r->complete;
  if (!r->complete) return OkStatus();
  Status result = r->error;
  Finish(r, status);
  return result;
}

Status Engine::CheckRequestsLocked(std::span<Request* const> requests, const char* what) const {
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i] != nullptr && !IsLiveLocked(requests[i])) {
      return InvalidArgument(std::string(what) + ": requests[" + std::to_string(i) +
                             "] is not a live request (already completed and freed, or never created)");
    }
  }
  // Repeats: mark each, stop at one already marked, unmark what was marked.
  size_t marked = 0;
  while (marked < requests.size() && (requests[marked] == nullptr || !requests[marked]->listed)) {
    if (requests[marked] != nullptr) requests[marked]->listed = true;
    ++marked;
  }
  for (size_t i = 0; i < marked; ++i) {
    if (requests[i] != nullptr) requests[i]->listed = false;
  }
  return marked == requests.size() ? OkStatus() : InvalidArgument(std::string(what) + ": a request is listed twice");
}

Status Engine::WaitAny(std::span<Request*> requests, int* index, grStatus_t* status, const char* what) {
  *index = -1;
  Lock lock(mu_);
  GR_RETURN_IF_ERROR(CheckRequestsLocked(requests, what));
  const auto live = std::count_if(requests.begin(), requests.end(), [](const Request* r) { return r != nullptr; });
  if (live == 0) {
    if (status != nullptr) *status = EmptyStatus();
    return OkStatus();
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
  auto describe = [&] {
    for (Request* r : requests) {
      if (r != nullptr) return "waiting for any of several requests, the first " + r->Describe() + ",";
    }
    return std::string("waiting for any request");
  };
  Status polled = PollUntil(lock, 0, any_done, describe);
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

Status Engine::WaitAll(std::span<Request*> requests, grStatus_t* statuses, const char* what) {
  Lock lock(mu_);
  GR_RETURN_IF_ERROR(CheckRequestsLocked(requests, what));
  // Requests complete for good, so the scan resumes where it stopped.
  size_t next = 0;
  auto first_pending = [&]() -> Request* {
    for (; next < requests.size(); ++next) {
      if (requests[next] != nullptr && !requests[next]->complete) return requests[next];
    }
    return nullptr;
  };
  uint64_t largest = 0;
  for (const Request* r : requests) largest = std::max<uint64_t>(largest, r == nullptr ? 0 : r->bytes);
  const Status polled = PollUntil(
      lock, largest, [&] { return first_pending() == nullptr; }, [&] { return first_pending()->Describe(); });
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
  Lock lock(mu_);
  const ContextState* declared = FindContext(context);
  if (declared == nullptr || !declared->declared) {
    return InvalidArgument(std::string(what) + ": context " + std::to_string(context) + " is not in use");
  }
  const std::vector<int>& members = declared->members;
  if (source != GR_ANY_SOURCE && (source < 0 || source >= static_cast<int>(members.size()))) {
    return InvalidArgument(std::string(what) + ": source " + std::to_string(source) + " is not a member");
  }
  const int source_world = source == GR_ANY_SOURCE ? -1 : members[source];
  grStatus_t hit{};
  bool matched = false;
  Status dead;
  auto look = [&] {
    ContextState& state = ContextOf(context);
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
    polled =
        PollUntil(lock, 0, look, [&] { return DescribeOperation(what, false, source, source_world, tag, context); });
  } else {
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
