// Where LL FIFOs start when GPURUN_FIRST_STEP moves every connector's first
// step away from 0 (a test knob: runtime/base/param_table.cc): near LL's
// clean-up steps (LLNeedsClean, wire_format.h) and its 32-bit flag's wrap.
//
// The lines of slot j start holding the flag of the first step of slot j
// after its next clean-up step c_j, LLFlag(c_j + kFifoSteps): what a line
// last written 2^32 steps before that step would hold. A receiver reading
// such a line before the sender wrote it would take stale data, unless the
// sender's clean-up at c_j rewrote the whole slot first (host_wire_test
// checks that line by line; the end-to-end tests run the collectives across
// those steps and the wrap). Host code only.
#ifndef GPURUN_COLL_LL_START_H_
#define GPURUN_COLL_LL_START_H_

#include <cstdint>

#include "coll/wire_format.h"

namespace gpurun::coll {

// The first step >= `from` of slot `slot` where LLNeedsClean holds.
constexpr uint64_t NextLLClean(uint64_t from, int slot) {
  constexpr uint64_t kPeriod = (kLLCleanMask | 7) + 1;  // 2^31
  const uint64_t in_period = kLLCleanMask + static_cast<uint64_t>(slot);
  uint64_t s = from - from % kPeriod + in_period;
  if (s < from) s += kPeriod;
  return s;
}

// The flag every line of slot `slot` starts with (see above).
constexpr uint32_t StartLLFlag(uint64_t first_step, int slot) {
  return LLFlag(NextLLClean(first_step, slot) + kFifoSteps);
}

static_assert(NextLLClean(0, 0) == 0x7ffffff8 && NextLLClean(0, 7) == 0x7fffffff);
static_assert(NextLLClean(0x7ffffff9, 0) == 0xfffffff8 && NextLLClean(0x7ffffff9, 1) == 0x7ffffff9);
static_assert(StartLLFlag((uint64_t{1} << 32) - 16, 3) == 4);  // step 2^32 + 3

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_LL_START_H_
