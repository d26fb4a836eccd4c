// Conversions between float and the two 16-bit float formats (IEEE fp16 and
// bfloat16), rounding to nearest even, as the reductions use them: a 16-bit
// value is widened to float, combined, and narrowed once per operation.
// Pure bit arithmetic, no hardware support needed; NaN stays NaN (quiet),
// infinities stay infinite, fp16 overflow goes to infinity.
#ifndef GPURUN_COLL_HOST_HALF_H_
#define GPURUN_COLL_HOST_HALF_H_

#include <bit>
#include <cstdint>

namespace gpurun::coll {

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0) {  // zero or subnormal: mant * 2^-24, exact in float
    const float mag = static_cast<float>(mant) * 0x1p-24f;
    return std::bit_cast<float>(std::bit_cast<uint32_t>(mag) | sign);
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t FloatToHalf(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN, Inf
  if (mag >= 0x477ff000u) return sign | 0x7c00u;                                  // >= 65520 rounds to infinity
  const uint32_t exp = mag >> 23;
  if (exp < 113) {                     // below 2^-14: a subnormal half (or zero)
    const uint32_t shift = 126 - exp;  // >= 14
    if (shift > 24) return sign;
    const uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t h = ((exp - 112) << 10) | ((mag >> 13) & 0x3ffu);
  const uint32_t rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry may reach the exponent: correct
  return static_cast<uint16_t>(sign | h);
}

inline float Bf16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t FloatToBf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_HALF_H_
