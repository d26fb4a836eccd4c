// Element conversions of the data check: every half and bfloat16 bit pattern
// round-trips, float-to-half rounds to nearest even, integers wrap.
#include "bench/elem_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

TEST(ElemCodec, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const float f = HalfToFloat(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToHalf(f), h) << std::hex << bits;
  }
}

TEST(ElemCodec, EveryBf16RoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t b = static_cast<uint16_t>(bits);
    const float f = Bf16ToFloat(b);
    if (std::isnan(f)) continue;
    EXPECT_EQ(FloatToBf16(f), b) << std::hex << bits;
  }
}

TEST(ElemCodec, HalfRoundsToNearestEven) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie, to even
  EXPECT_EQ(FloatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie, to even (up)
  EXPECT_EQ(FloatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // infinity
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);        // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -26)), 0x0000);        // below half of it
  EXPECT_EQ(FloatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie, to even
  EXPECT_EQ(FloatToBf16(256.0f), 0x4380);
}

TEST(ElemCodec, StoreAndLoadEveryType) {
  unsigned char cell[8];
  for (int t = 0; t < grNumDataTypes; ++t) {
    const auto type = static_cast<grDataType_t>(t);
    for (double v : {0.0, 1.0, 7.0, 100.0}) {
      StoreElem(type, cell, 0, v);
      EXPECT_EQ(LoadElem(type, cell, 0), v) << t;
    }
    if (IsSigned(type)) {
      StoreElem(type, cell, 0, -50);
      EXPECT_EQ(LoadElem(type, cell, 0), -50) << t;
    }
  }
  EXPECT_EQ(RoundToType(grUint8, 300), 44);  // wraps
  EXPECT_EQ(RoundToType(grInt8, 130), -126);
  EXPECT_EQ(RoundToType(grUint32, -1), 4294967295.0);
  EXPECT_EQ(RoundToType(grBfloat16, 257), 256);
  EXPECT_EQ(RoundToType(grFloat16, 2049), 2048);
  EXPECT_EQ(ElemSize(grBfloat16), 2u);
  EXPECT_EQ(ElemSize(grUint64), 8u);
}

TEST(ElemCodec, Ulp) {
  EXPECT_EQ(Ulp(grInt32, 5), 1);
  EXPECT_EQ(Ulp(grFloat16, 1.5), std::ldexp(1.0, -10));
  EXPECT_EQ(Ulp(grBfloat16, 3), std::ldexp(1.0, -6));
  EXPECT_EQ(Ulp(grFloat32, 0.25), std::ldexp(1.0, -25));
  EXPECT_EQ(Ulp(grFloat64, 0), 0);
}

}  // namespace
