// Backoff: the pause between progress polls of a blocking call. The first
// `spin` pauses return at once (low latency while a reply is imminent); after
// that each pause yields the core (sched_yield) and sleeps, starting at 1 us
// and doubling up to `max_sleep`, so oversubscribed jobs (more ranks than
// cores) let the rank that holds the data run. Reset() after progress was made
// returns to spinning.
#ifndef GPURUN_P2P_BACKOFF_H_
#define GPURUN_P2P_BACKOFF_H_

#include <chrono>
#include <cstdint>

namespace gpurun::p2p {

class Backoff {
 public:
  // spin: pauses that only return; max_sleep_s: longest sleep, in seconds.
  Backoff(int64_t spin, double max_sleep_s);
  // Reads GPURUN_PROGRESS_SPIN and GPURUN_PROGRESS_MAX_SLEEP.
  static Backoff FromParams();

  void Pause();
  void Reset();

  // The sleep the next backed-off pause takes (tests).
  std::chrono::nanoseconds next_sleep() const { return sleep_; }

 private:
  int64_t spin_;
  int64_t spins_ = 0;
  std::chrono::nanoseconds sleep_{0};
  std::chrono::nanoseconds max_sleep_;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_BACKOFF_H_
