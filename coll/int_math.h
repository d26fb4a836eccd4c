// Small integer helpers for the pure collective math (patterns, chunking,
// wire-format byte arithmetic). Usable from host and device code; std::min and
// friends are not, without nvcc's relaxed-constexpr flag.
#ifndef GPURUN_COLL_INT_MATH_H_
#define GPURUN_COLL_INT_MATH_H_

#include <cstdint>

#include "coll/device_compat.h"

namespace gpurun::coll {

// ceil(a / b) for b > 0.
GR_HOST_DEVICE constexpr uint64_t DivUp(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The smallest multiple of `b` that is >= a, for b > 0.
GR_HOST_DEVICE constexpr uint64_t AlignUp(uint64_t a, uint64_t b) { return DivUp(a, b) * b; }

template <typename T>
GR_HOST_DEVICE constexpr T Min(T a, T b) {
  return b < a ? b : a;
}

template <typename T>
GR_HOST_DEVICE constexpr T Max(T a, T b) {
  return a < b ? b : a;
}

// a mod n in [0, n) for any sign of a, n > 0 (ring arithmetic on positions).
GR_HOST_DEVICE constexpr int PosMod(int a, int n) {
  const int r = a % n;
  return r < 0 ? r + n : r;
}

// ceil(log2(n)) for n >= 1 (0 for n == 1).
GR_HOST_DEVICE constexpr int CeilLog2(uint64_t n) {
  int bits = 0;
  while ((uint64_t{1} << bits) < n) ++bits;
  return bits;
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_INT_MATH_H_
