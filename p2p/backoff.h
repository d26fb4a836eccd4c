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
//                               between sleeping ranks would pay that. A
//                               long wait may sleep longer, up to 1/8 of the
//                               time waited (at most kLongSleepFactor x
//                               max_sleep): a late wake then adds at most
//                               12.5% to it, and ranks that sleep long wake
//                               the ranks they share cores with less often.
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
  // `policy` for a wait on a message of `bytes` by a rank that has a core to
  // itself: it spins longer by the time copying the message takes (a
  // rendezvous waits for that on top of the round trips the plain spin
  // covers), at kSpinPerKiB, by at most kMaxTransferSpin. A rank whose host
  // has more ranks than cores (`shared_cores`) spins at most kSharedCoreSpin
  // and never longer for size: its spinning takes the core from the rank it
  // waits for.
  static Policy ForWait(Policy policy, uint64_t bytes, bool shared_cores);
  // 200 ns per KiB is 5 GB/s, half what process_vm_readv copies on the
  // 2-core test VM (gpurun-bench bw at 1 MiB: ~20 GB/s both ways), so a
  // rendezvous copy ends before the spin does; 1 ms covers 5 MiB. Without
  // it, ping-pong latency at 256 KiB..1 MiB was ~20-50% worse than with.
  static constexpr std::chrono::nanoseconds kSpinPerKiB{200};
  static constexpr std::chrono::nanoseconds kMaxTransferSpin{1'000'000};
  // 8 ranks on 2 cores passing a token round 1000 times: 0.42-0.47 s with a
  // 10 us spin, 0.6-1.1 s with 50 us, ~2 s with 200 us (test VM).
  static constexpr std::chrono::nanoseconds kSharedCoreSpin{10'000};
  // 8 ranks on 2 cores, p2p_probe (64 MiB copies while 6 ranks wait):
  // 1.27-1.31 s with sleeps capped at 200 us, 1.07-1.10 s with this (test VM).
  static constexpr int kLongSleepFraction = 8;
  static constexpr int kLongSleepFactor = 10;

  // The sleep after one of `current` (0 before the first) when the wait has
  // gone `idle` without progress (pure; tests).
  static std::chrono::nanoseconds NextSleep(std::chrono::nanoseconds current, Clock::duration idle,
                                            const Policy& policy);

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
  void Sleep(Clock::duration idle);

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
