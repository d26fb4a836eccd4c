// How a two-shot allreduce (twoshot_kernel.cuh) cuts a call into parts: the
// call's LL lines (8 data bytes each) in nranks consecutive parts of
// TwoShotPartLines lines, part r reduced by rank r. When the lines do not
// fill every part (fewer lines than ranks, or a short last part), a part
// may be empty: its owner then sends one token line at the part's first
// line instead, so every rank still hears from every other in every call
// (the scratch reuse rule of oneshot_launch.h rests on it). The scratch
// slots therefore hold TwoShotSlotLines lines, at most nranks - 1 more than
// the call's.
#ifndef GPURUN_COLL_DEVICE_TWOSHOT_LAYOUT_H_
#define GPURUN_COLL_DEVICE_TWOSHOT_LAYOUT_H_

#include <cstdint>

#include "coll/device_compat.h"

namespace gpurun::coll {

// Lines of each part (the last part's may be fewer, or none).
GR_HOST_DEVICE inline uint64_t TwoShotPartLines(uint64_t lines, int nranks) {
  const auto n = static_cast<uint64_t>(nranks);
  return (lines + n - 1) / n;
}

// Lines [*begin, *end) of rank `owner`'s part; empty when *begin >= *end.
GR_HOST_DEVICE inline void TwoShotPart(uint64_t lines, int nranks, int owner, uint64_t* begin, uint64_t* end) {
  const uint64_t per = TwoShotPartLines(lines, nranks);
  const uint64_t b = per * static_cast<uint64_t>(owner);
  const uint64_t e = b + per;
  *begin = b < lines ? b : lines;
  *end = e < lines ? e : lines;
}

// The owner of line `i` (< lines).
GR_HOST_DEVICE inline int TwoShotOwner(uint64_t i, uint64_t lines, int nranks) {
  return static_cast<int>(i / TwoShotPartLines(lines, nranks));
}

// Where the token of rank `owner`'s empty part goes: its part's first line.
GR_HOST_DEVICE inline uint64_t TwoShotTokenLine(uint64_t lines, int nranks, int owner) {
  return TwoShotPartLines(lines, nranks) * static_cast<uint64_t>(owner);
}

// Lines a slot needs for calls of up to `lines` lines (tokens included).
GR_HOST_DEVICE inline uint64_t TwoShotSlotLines(uint64_t lines, int nranks) {
  return TwoShotPartLines(lines, nranks) * static_cast<uint64_t>(nranks);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_DEVICE_TWOSHOT_LAYOUT_H_
