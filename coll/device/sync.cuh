// System-scope loads and stores of the FIFO step counters, the GPU clock, and
// the bounded waits every device primitive uses: they poll a counter until it
// reaches a target, or an LL line until it carries a flag, and every
// kPollCheck polls look at the host-mapped abort flag and the GPURUN_TIMEOUT
// deadline; a failed wait records what it waited for in the launch's error
// record (the first failure wins) and returns false.
#ifndef GPURUN_COLL_DEVICE_SYNC_CUH_
#define GPURUN_COLL_DEVICE_SYNC_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

inline constexpr uint32_t kPollCheck = 1024;

__device__ __forceinline__ uint64_t LoadAcquireSys(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void StoreReleaseSys(uint64_t* p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ void FenceAcqRelSys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

__device__ __forceinline__ uint64_t GlobalTimerNs() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ uint32_t LoadVolatile(const uint32_t* p) {
  return *reinterpret_cast<const volatile uint32_t*>(p);
}

// What a wait is for, for the error record.
struct WaitWhat {
  uint32_t channel;
  uint32_t sending;
  uint32_t peer = 0;
};

// `L`: a launch record with `error` (DevError*), `abort` and `timeout_ns`
// (DevLaunch, DevP2pLaunch).
template <typename L>
__device__ __forceinline__ void RecordError(const L& l, uint32_t code, WaitWhat what, uint64_t step, uint64_t value) {
  if (atomicCAS(&l.error->code, 0u, code) != 0u) return;
  l.error->channel = what.channel;
  l.error->sending = what.sending;
  l.error->peer = what.peer;
  l.error->step = step;
  l.error->value = value;
  __threadfence_system();
}

// The checks of a bounded poll: every kPollCheck polls, the abort flag,
// another block's failure and the deadline (set at the first check).
template <typename L>
struct PollGuard {
  const L& l;
  WaitWhat what;
  uint64_t deadline = 0;
  uint32_t polls = 0;

  // false: stop waiting (the error is recorded unless another wait failed
  // first). `target` and `value` go into the record.
  __device__ __forceinline__ bool Keep(uint64_t target, uint64_t value) {
    if (++polls % kPollCheck != 0) return true;
    if (LoadVolatile(l.abort) != 0) {
      RecordError(l, static_cast<uint32_t>(DevErrorCode::kAborted), what, target, value);
      return false;
    }
    // Another block already failed: its peer will not come either.
    if (LoadVolatile(&l.error->code) != 0) return false;
    const uint64_t now = GlobalTimerNs();
    if (deadline == 0) {
      deadline = l.timeout_ns == 0 ? ~0ull : now + l.timeout_ns;
    } else if (now > deadline) {
      RecordError(l, static_cast<uint32_t>(DevErrorCode::kTimeout), what, target, value);
      return false;
    }
    return true;
  }
};

// Waits until *counter >= target; one thread calls it.
template <typename L>
static __device__ __noinline__ bool WaitAtLeast(const L& l, const uint64_t* counter, uint64_t target, WaitWhat what) {
  PollGuard<L> guard{l, what};
  for (;;) {
    const uint64_t v = LoadAcquireSys(counter);
    if (v >= target) return true;
    if (!guard.Keep(target, v)) return false;
  }
}

// Polls an LL line until both its flags are `flag`; `data` gets its 8 bytes.
template <typename L>
static __device__ __noinline__ bool WaitLLLine(const L& l, const LLLine* line, uint32_t flag, WaitWhat what,
                                               uint64_t* data) {
  PollGuard<L> guard{l, what};
  for (;;) {
    if (line->read(flag, data)) return true;
    if (!guard.Keep(flag, line->word[1])) return false;
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_SYNC_CUH_
