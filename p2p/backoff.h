// Backoff: the pause between progress polls of a blocking call, by how long
// the call has gone without progress (idle time):
//   idle < spin                 return at once: a reply that is microseconds
//                               away is seen microseconds after it lands;
//   spin <= idle < spin+yield   sched_yield (off by default, see below);
//   later                       sleep, from 1 us doubling up to max_sleep,
//                               with the thread's timer slack cut to 1 us
//                               for the sleep (restored when the wait ends):
//                               Linux's default 50 us slack turns a 1 us
//                               sleep into ~55 us, and each hop of a message
//                               between sleeping ranks would pay that.
// Reset() after progress returns to spinning. Phases go by time, not by poll
// count (a poll costs 0.1 us or several, with the number of peers); while
// spinning the clock is read only every kPollsPerClock pauses.
//
// Why sleep rather than yield (measured on Linux 6.18, EEVDF, 2 cores):
// sched_yield pushes the caller's deadline back a whole slice per call, so a
// rank polling with yields queues behind every other runnable task; against
// 4 busy processes a 2-rank ping-pong took 0.4-1100 us a hop with a 10 ms
// yield phase and 1.7-2.4 us with short sleeps, and 8 ranks on the 2 cores
// passed a token round 1000 times in ~5 s against ~0.9 s.
#ifndef GPURUN_P2P_BACKOFF_H_
#define GPURUN_P2P_BACKOFF_H_

#include <chrono>
#include <cstdint>

namespace gpurun::p2p {

class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase { kSpin, kYield, kSleep };
  struct Policy {
    std::chrono::nanoseconds spin;
    std::chrono::nanoseconds yield;
    std::chrono::nanoseconds max_sleep;
  };
  // Spinning pauses between two looks at the clock.
  static constexpr uint32_t kPollsPerClock = 32;

  explicit Backoff(const Policy& policy) : policy_(policy) {}
  ~Backoff();  // restores the timer slack if a sleep changed it
  Backoff(const Backoff&) = delete;
  Backoff& operator=(const Backoff&) = delete;
  // GPURUN_PROGRESS_SPIN, GPURUN_PROGRESS_YIELD, GPURUN_PROGRESS_MAX_SLEEP.
  static Policy PolicyFromParams();

  // After a poll that found nothing to do.
  void Pause();
  // After a poll that made progress.
  void Reset() {
    pauses_ = 0;
    next_clock_ = 0;
    phase_ = Phase::kSpin;
    sleep_ = std::chrono::nanoseconds(0);
  }

  // The phase the last pause was in, and the sleep the next sleeping pause
  // takes (tests).
  Phase phase() const { return phase_; }
  std::chrono::nanoseconds next_sleep() const { return sleep_; }

 private:
  void Sleep();

  Policy policy_;
  uint32_t pauses_ = 0;           // since the last Reset
  uint32_t next_clock_ = 0;       // pause at which to read the clock next
  Clock::time_point idle_since_;  // at the first clock reading after Reset
  Phase phase_ = Phase::kSpin;
  std::chrono::nanoseconds sleep_{0};
  long saved_slack_ = -1;  // the thread's timer slack before the first sleep, -1 if untouched
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_BACKOFF_H_
