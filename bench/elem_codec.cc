// Element conversions for the data check (see elem_codec.h).
#include "bench/elem_codec.h"

#include <cmath>
#include <cstring>

namespace {

template <typename T>
T Read(const void* base, size_t index) {
  T value;
  std::memcpy(&value, static_cast<const char*>(base) + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void Write(void* base, size_t index, T value) {
  std::memcpy(static_cast<char*>(base) + index * sizeof(T), &value, sizeof(T));
}

// Integer values wrap modulo 2^64 first, then to the element type (C++20's
// conversions are modular), as the element type's own arithmetic does.
template <typename T>
T Wrap(double value) {
  const int64_t whole = static_cast<int64_t>(value);
  return static_cast<T>(whole);
}

int MantissaBits(grDataType_t type) {
  switch (type) {
    case grFloat16: return 11;
    case grBfloat16: return 8;
    case grFloat32: return 24;
    case grFloat64: return 53;
    default: return 0;
  }
}

}  // namespace

size_t ElemSize(grDataType_t type) {
  switch (type) {
    case grInt8:
    case grUint8: return 1;
    case grFloat16:
    case grBfloat16: return 2;
    case grInt32:
    case grUint32:
    case grFloat32: return 4;
    default: return 8;
  }
}

bool IsFloating(grDataType_t type) {
  return type == grFloat16 || type == grBfloat16 || type == grFloat32 || type == grFloat64;
}

bool IsSigned(grDataType_t type) { return IsFloating(type) || type == grInt8 || type == grInt32 || type == grInt64; }

uint16_t FloatToHalf(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u);  // inf, nan
  if (abs >= 0x477ff000u) return sign | 0x7c00u;  // from 65520 on, rounds to infinity
  if (abs < 0x38800000u) {                        // below 2^-14: a subnormal half, in units of 2^-24
    float magnitude;
    std::memcpy(&magnitude, &abs, sizeof(magnitude));
    return sign | static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f));
  }
  const uint32_t mantissa = abs & 0x7fffffu;
  uint32_t half = ((((abs >> 23) - 127 + 15) << 10) | (mantissa >> 13));
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // a carry into the exponent is right
  return sign | static_cast<uint16_t>(half);
}

float HalfToFloat(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  } else if (exponent == 31) {
    magnitude = mantissa != 0 ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  }
  return (bits & 0x8000u) ? -magnitude : magnitude;
}

uint16_t FloatToBf16(float value) {
  uint32_t x;
  std::memcpy(&x, &value, sizeof(x));
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

float Bf16ToFloat(uint16_t bits) {
  const uint32_t x = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &x, sizeof(value));
  return value;
}

double LoadElem(grDataType_t type, const void* base, size_t index) {
  switch (type) {
    case grInt8: return Read<int8_t>(base, index);
    case grUint8: return Read<uint8_t>(base, index);
    case grInt32: return Read<int32_t>(base, index);
    case grUint32: return Read<uint32_t>(base, index);
    case grInt64: return static_cast<double>(Read<int64_t>(base, index));
    case grUint64: return static_cast<double>(Read<uint64_t>(base, index));
    case grFloat16: return HalfToFloat(Read<uint16_t>(base, index));
    case grFloat32: return Read<float>(base, index);
    case grFloat64: return Read<double>(base, index);
    case grBfloat16: return Bf16ToFloat(Read<uint16_t>(base, index));
    default: return NAN;
  }
}

void StoreElem(grDataType_t type, void* base, size_t index, double value) {
  switch (type) {
    case grInt8: return Write(base, index, Wrap<int8_t>(value));
    case grUint8: return Write(base, index, Wrap<uint8_t>(value));
    case grInt32: return Write(base, index, Wrap<int32_t>(value));
    case grUint32: return Write(base, index, Wrap<uint32_t>(value));
    case grInt64: return Write(base, index, Wrap<int64_t>(value));
    case grUint64: return Write(base, index, Wrap<uint64_t>(value));
    case grFloat16: return Write(base, index, FloatToHalf(static_cast<float>(value)));
    case grFloat32: return Write(base, index, static_cast<float>(value));
    case grFloat64: return Write(base, index, value);
    case grBfloat16: return Write(base, index, FloatToBf16(static_cast<float>(value)));
    default: return;
  }
}

double RoundToType(grDataType_t type, double value) {
  unsigned char cell[8];
  StoreElem(type, cell, 0, value);
  return LoadElem(type, cell, 0);
}

double Ulp(grDataType_t type, double value) {
  if (!IsFloating(type)) return 1;
  if (value == 0) return 0;
  return std::ldexp(1.0, std::ilogb(value) - (MantissaBits(type) - 1));
}
