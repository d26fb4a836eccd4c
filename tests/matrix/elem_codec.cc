// Element encoding and decoding for the matrix (elem_codec.h). Half and
// bfloat16 are handled by one routine for a binary format of `digits`
// significant bits and `exp_bits` exponent bits.
#include "tests/matrix/elem_codec.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tests/matrix/matrix_spec.h"

namespace gpurun::matrix {
namespace {

struct SmallFloat {
  int digits;    // significant bits, the hidden one included
  int exp_bits;  // exponent field width
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
};
constexpr SmallFloat kHalf{11, 5};
constexpr SmallFloat kBf16{8, 8};

uint16_t SmallFloatBits(SmallFloat f, double v) {
  const uint32_t sign = std::signbit(v) ? 1u << (f.digits - 1 + f.exp_bits) : 0u;
  const double a = std::fabs(v);
  const uint32_t max_exp = (1u << f.exp_bits) - 1;
  if (std::isnan(a)) return static_cast<uint16_t>(sign | max_exp << (f.digits - 1) | 1u);
  if (a == 0) return static_cast<uint16_t>(sign);
  int e = 0;
  std::frexp(a, &e);
  int exponent = e - 1;  // a in [2^exponent, 2^(exponent + 1))
  const int min_exponent = 1 - f.bias();
  if (exponent < min_exponent) {  // subnormal: multiples of 2^(min_exponent - digits + 1)
    const double s = std::nearbyint(std::ldexp(a, f.digits - 1 - min_exponent));
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(s));
  }
  double s = std::nearbyint(std::ldexp(a, f.digits - 1 - exponent));
  if (s == std::ldexp(1.0, f.digits)) {
    s /= 2;
    ++exponent;
  }
  const uint32_t biased = static_cast<uint32_t>(exponent + f.bias());
  if (biased >= max_exp) return static_cast<uint16_t>(sign | max_exp << (f.digits - 1));  // infinity
  const uint32_t mantissa = static_cast<uint32_t>(s) - (1u << (f.digits - 1));
  return static_cast<uint16_t>(sign | biased << (f.digits - 1) | mantissa);
}

double SmallFloatValue(SmallFloat f, uint16_t bits) {
  const bool negative = (bits >> (f.digits - 1 + f.exp_bits)) & 1u;
  const uint32_t exp_field = (bits >> (f.digits - 1)) & ((1u << f.exp_bits) - 1);
  const uint32_t mantissa = bits & ((1u << (f.digits - 1)) - 1);
  double v = 0;
  if (exp_field == 0) {
    v = std::ldexp(static_cast<double>(mantissa), 1 - f.bias() - (f.digits - 1));
  } else if (exp_field == (1u << f.exp_bits) - 1) {
    v = mantissa == 0 ? INFINITY : NAN;
  } else {
    v = std::ldexp(static_cast<double>(mantissa | (1u << (f.digits - 1))),
                   static_cast<int>(exp_field) - f.bias() - (f.digits - 1));
  }
  return negative ? -v : v;
}

template <typename T>
void Put(T value, void* dst) {
  std::memcpy(dst, &value, sizeof(T));
}

template <typename T>
T Get(const void* src) {
  T value;
  std::memcpy(&value, src, sizeof(T));
  return value;
}

}  // namespace

void EncodeElem(grDataType_t type, double value, void* dst) {
  switch (type) {
    case grInt8: Put(static_cast<int8_t>(value), dst); break;
    case grUint8: Put(static_cast<uint8_t>(value), dst); break;
    case grInt32: Put(static_cast<int32_t>(value), dst); break;
    case grUint32: Put(static_cast<uint32_t>(value), dst); break;
    case grInt64: Put(static_cast<int64_t>(value), dst); break;
    case grUint64: Put(static_cast<uint64_t>(value), dst); break;
    case grFloat16: Put(SmallFloatBits(kHalf, value), dst); break;
    case grFloat32: Put(static_cast<float>(value), dst); break;
    case grFloat64: Put(value, dst); break;
    case grBfloat16: Put(SmallFloatBits(kBf16, value), dst); break;
    default: break;
  }
}

double DecodeElem(grDataType_t type, const void* src) {
  switch (type) {
    case grInt8: return Get<int8_t>(src);
    case grUint8: return Get<uint8_t>(src);
    case grInt32: return Get<int32_t>(src);
    case grUint32: return Get<uint32_t>(src);
    case grInt64: return static_cast<double>(Get<int64_t>(src));
    case grUint64: return static_cast<double>(Get<uint64_t>(src));
    case grFloat16: return SmallFloatValue(kHalf, Get<uint16_t>(src));
    case grFloat32: return Get<float>(src);
    case grFloat64: return Get<double>(src);
    case grBfloat16: return SmallFloatValue(kBf16, Get<uint16_t>(src));
    default: return 0;
  }
}

std::string FormatElem(grDataType_t type, const void* src) {
  char text[96];
  const auto* bytes = static_cast<const unsigned char*>(src);
  int len = std::snprintf(text, sizeof(text), "%.9g (0x", DecodeElem(type, src));
  // Little-endian: print the most significant byte first.
  for (size_t i = TypeBytes(type); i-- > 0;) len += std::snprintf(text + len, sizeof(text) - len, "%02x", bytes[i]);
  std::snprintf(text + len, sizeof(text) - len, ")");
  return text;
}

}  // namespace gpurun::matrix
