// Spin, yield, then sleep with exponential backoff (see backoff.h).
#include "p2p/backoff.h"

#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <thread>

#include "runtime/base/param_table.h"

namespace gpurun::p2p {
namespace {

std::chrono::nanoseconds Nanos(double seconds) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(seconds));
}

}  // namespace

// Timer slack while sleeping: wake within ~1 us of the requested time.
constexpr unsigned long kSleepSlackNs = 1000;

Backoff::~Backoff() {
  if (saved_slack_ >= 0) (void)prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(saved_slack_));
}

Backoff::Policy Backoff::PolicyFromParams() {
  return Policy{Nanos(params::kProgressSpin.Get()), Nanos(params::kProgressYield.Get()),
                Nanos(params::kProgressMaxSleep.Get())};
}

Backoff::Policy Backoff::ForWait(Policy policy, uint64_t bytes, bool shared_cores) {
  if (shared_cores) {
    policy.spin = std::min(policy.spin, kSharedCoreSpin);
  } else {
    policy.spin += std::min(kSpinPerKiB * static_cast<int64_t>(bytes >> 10), kMaxTransferSpin);
  }
  return policy;
}

void Backoff::Pause() {
  if (pauses_++ < next_clock_) return;  // spinning between looks at the clock
  const Clock::time_point now = Clock::now();
  if (pauses_ == 1) idle_since_ = now;
  const auto idle = now - idle_since_;
  if (idle < policy_.spin) {
    phase_ = Phase::kSpin;
    next_clock_ = pauses_ + kPollsPerClock;
    return;
  }
  next_clock_ = pauses_;  // from here on every pause looks: it costs a syscall anyway
  if (idle < policy_.spin + policy_.yield) {
    phase_ = Phase::kYield;
    sched_yield();
    return;
  }
  phase_ = Phase::kSleep;
  Sleep(idle);
}

void Backoff::Sleep(Clock::duration idle) {
  if (sleep_.count() == 0) {
    sched_yield();  // the first time: give the core away once before sleeping at all
  } else {
    if (saved_slack_ < 0) {
      const int slack = prctl(PR_GET_TIMERSLACK);
      if (slack >= 0 && prctl(PR_SET_TIMERSLACK, kSleepSlackNs) == 0) saved_slack_ = slack;
    }
    std::this_thread::sleep_for(sleep_);
  }
  sleep_ = NextSleep(sleep_, idle, policy_);
}

std::chrono::nanoseconds Backoff::NextSleep(std::chrono::nanoseconds current, Clock::duration idle,
                                            const Policy& policy) {
  const std::chrono::nanoseconds next = current.count() == 0 ? std::chrono::microseconds(1) : 2 * current;
  const auto share = std::chrono::duration_cast<std::chrono::nanoseconds>(idle / kLongSleepFraction);
  return std::min(next, std::max(policy.max_sleep, std::min(share, kLongSleepFactor * policy.max_sleep)));
}

}  // namespace gpurun::p2p
