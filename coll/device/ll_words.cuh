// The 8-byte words LL lines carry, as the device kernels load, store and
// reduce them (one-shot allreduce, ring LL primitives): a word holds
// 8 / sizeof(element) elements of the user's buffer; the last word of a
// buffer may be partial, its missing bytes read as 0 and never stored.
#ifndef GPURUN_COLL_DEVICE_LL_WORDS_CUH_
#define GPURUN_COLL_DEVICE_LL_WORDS_CUH_

#include <cstdint>

#include "coll/device/elem_ops.cuh"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

// Data bytes of one LL line (wire_format.h GeometryOf(kLL).line_data_bytes).
inline constexpr uint64_t kLLWordBytes = GeometryOf(Protocol::kLL).line_data_bytes;

// 8 data bytes at `p`, of which `n` (1..8) are valid (the rest read as 0),
// by the widest loads `p`'s alignment allows.
__device__ __forceinline__ uint64_t LoadChunk(const uint8_t* p, uint64_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && a % 8 == 0) return *reinterpret_cast<const uint64_t*>(p);
  if (n == 8 && a % 4 == 0) {
    const auto* w = reinterpret_cast<const uint32_t*>(p);
    return static_cast<uint64_t>(w[0]) | static_cast<uint64_t>(w[1]) << 32;
  }
  uint64_t v = 0;
  for (uint64_t b = 0; b < n; ++b) v |= static_cast<uint64_t>(p[b]) << (8 * b);
  return v;
}

__device__ __forceinline__ void StoreChunk(uint8_t* p, uint64_t v, uint64_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && a % 8 == 0) {
    *reinterpret_cast<uint64_t*>(p) = v;
  } else if (n == 8 && a % 4 == 0) {
    auto* w = reinterpret_cast<uint32_t*>(p);
    w[0] = static_cast<uint32_t>(v);
    w[1] = static_cast<uint32_t>(v >> 32);
  } else {
    for (uint64_t b = 0; b < n; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_LL_WORDS_CUH_
