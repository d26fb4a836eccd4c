// FastMutex: the engine's lock. Uncontended, lock and unlock are one inline
// atomic instruction each (std::mutex goes through two library calls and a
// type check, about 60 instructions a pair — more than a whole idle progress
// poll of the shm wire). Contended, a thread sleeps in the kernel
// (std::atomic::wait) and unlock wakes one sleeper.
//
// The three-state futex mutex of U. Drepper, "Futexes Are Tricky" (2011),
// mutex 3: 0 unlocked, 1 locked, 2 locked and maybe awaited.
//
// Thread safety: that is its purpose. Not recursive; usable with
// std::lock_guard and std::unique_lock.
#ifndef GPURUN_P2P_FAST_MUTEX_H_
#define GPURUN_P2P_FAST_MUTEX_H_

#include <atomic>

namespace gpurun::p2p {

class FastMutex {
 public:
  FastMutex() = default;
  FastMutex(const FastMutex&) = delete;
  FastMutex& operator=(const FastMutex&) = delete;

  void lock() {
    int expected = 0;
    if (!state_.compare_exchange_strong(expected, 1, std::memory_order_acquire)) LockContended();
  }

  bool try_lock() {
    int expected = 0;
    return state_.compare_exchange_strong(expected, 1, std::memory_order_acquire);
  }

  void unlock() {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

 private:
  void LockContended() {
    // Marking the lock awaited (2) before sleeping makes the holder's unlock wake us.
    while (state_.exchange(2, std::memory_order_acquire) != 0) state_.wait(2, std::memory_order_relaxed);
  }

  std::atomic<int> state_{0};
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_FAST_MUTEX_H_
