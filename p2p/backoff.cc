// Spin, then yield and sleep with exponential backoff (see backoff.h).
#include "p2p/backoff.h"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "runtime/base/param_table.h"

namespace gpurun::p2p {

Backoff::Backoff(int64_t spin, double max_sleep_s)
    : spin_(spin),
      max_sleep_(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(max_sleep_s))) {}

Backoff Backoff::FromParams() { return Backoff(params::kProgressSpin.Get(), params::kProgressMaxSleep.Get()); }

void Backoff::Pause() {
  if (spins_ < spin_) {
    ++spins_;
    return;
  }
  sched_yield();
  if (sleep_.count() > 0) std::this_thread::sleep_for(sleep_);
  const std::chrono::nanoseconds next = sleep_.count() == 0 ? std::chrono::microseconds(1) : 2 * sleep_;
  sleep_ = std::min(next, max_sleep_);
}

void Backoff::Reset() {
  spins_ = 0;
  sleep_ = std::chrono::nanoseconds(0);
}

}  // namespace gpurun::p2p
