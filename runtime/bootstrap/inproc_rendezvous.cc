// InprocRendezvous (see inproc_rendezvous.h).
#include "runtime/bootstrap/inproc_rendezvous.h"

#include <chrono>
#include <sstream>

#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun {
namespace {

// Missing ranks named one by one up to this many, then counted.
constexpr int kMaxNamedRanks = 16;

}  // namespace

InprocRendezvous::InprocRendezvous(int size, std::optional<double> timeout_s) : size_(size), timeout_s_(timeout_s) {
  StartRound();
}

void InprocRendezvous::StartRound() {
  round_.label.clear();
  round_.blobs.assign(size_, {});
  round_.arrived.assign(size_, false);
  round_.count = 0;
}

void InprocRendezvous::Fail(Status status) {
  if (!failure_) {
    GR_LOG(Info, Bootstrap) << "inproc bootstrap: " << status.ToString();
    failure_ = std::move(status);
  }
  cv_.notify_all();
}

double InprocRendezvous::TimeoutSeconds() const { return timeout_s_ ? *timeout_s_ : params::kTimeout.Get(); }

std::string InprocRendezvous::MissingRanks() const {
  std::ostringstream out;
  const int missing = size_ - round_.count;
  out << (missing == 1 ? "rank " : "ranks ");
  int named = 0;
  for (int r = 0; r < size_ && named < kMaxNamedRanks; ++r) {
    if (round_.arrived[r]) continue;
    out << (named > 0 ? ", " : "") << r;
    ++named;
  }
  if (missing > named) out << " and " << (missing - named) << " more";
  out << " of " << size_;
  return out.str();
}

StatusOr<std::shared_ptr<const InprocRendezvous::Blobs>> InprocRendezvous::Exchange(int rank, const std::string& label,
                                                                                    std::span<const std::byte> mine) {
  std::unique_lock<std::mutex> lock(mu_);
  if (failure_) return *failure_;
  if (round_.count == 0) round_.label = label;
  if (round_.label != label) {
    Fail(InvalidUsage("rank " + std::to_string(rank) + " entered " + label + " while other ranks are in " +
                      round_.label + ": every rank must call the same collectives in the same order"));
    return *failure_;
  }
  if (round_.arrived[rank]) return InvalidUsage("rank " + std::to_string(rank) + " entered " + label + " twice");
  round_.blobs[rank].assign(mine.begin(), mine.end());
  round_.arrived[rank] = true;
  ++round_.count;
  if (round_.count == size_) {
    result_ = std::make_shared<const Blobs>(std::move(round_.blobs));
    StartRound();
    ++generation_;
    cv_.notify_all();
    return result_;
  }

  const uint64_t my_generation = generation_;
  auto done = [&] { return generation_ != my_generation || failure_.has_value(); };
  const double timeout_s = TimeoutSeconds();
  if (timeout_s <= 0) {
    cv_.wait(lock, done);
  } else {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    if (!cv_.wait_until(lock, deadline, done)) {
      // The first waiter to give up fails the group, so every rank reports the same missing ranks.
      std::ostringstream message;
      message << "inproc bootstrap: timed out after " << timeout_s << " s ("
              << (timeout_s_ ? "group timeout" : "GPURUN_TIMEOUT") << ") waiting for " << MissingRanks() << " in "
              << label;
      Fail(TimeoutError(message.str()));
    }
  }
  // A completed round wins over a later failure: the data is all there.
  if (generation_ != my_generation) return result_;
  return *failure_;
}

void InprocRendezvous::Abort(int rank, int code, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!abort_code_) abort_code_ = code;
  Fail(RemoteError("rank " + std::to_string(rank) + " aborted with code " + std::to_string(code) + ": " + message));
}

std::optional<int> InprocRendezvous::abort_code() const {
  std::lock_guard<std::mutex> lock(mu_);
  return abort_code_;
}

}  // namespace gpurun
