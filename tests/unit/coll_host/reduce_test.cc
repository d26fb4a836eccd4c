// Reductions (coll/host/reduce.h) and the fp16 / bf16 converters (half.h).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "coll/host/half.h"
#include "coll/host/reduce.h"

namespace gpurun::coll {
namespace {

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(f)))) << h;
      continue;
    }
    EXPECT_EQ(FloatToHalf(f), h) << h;
  }
}

TEST(Half, EdgeValues) {
  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x0400), 0x1p-14f);  // smallest normal
  EXPECT_EQ(HalfToFloat(0xc000), -2.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7c00)));
  EXPECT_EQ(FloatToHalf(65519.0f), 0x7bff);  // below the halfway point: max
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);  // halfway rounds to even: infinity
  EXPECT_EQ(FloatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalf(-1e10f), 0xfc00);
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);  // halfway to the smallest subnormal: even (0)
  EXPECT_EQ(FloatToHalf(0x1.8p-25f), 0x0001);
  EXPECT_EQ(FloatToHalf(0x1.8p-24f), 0x0002);  // 1.5 units: ties to even (2)
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3c00);  // tie: to even
  EXPECT_EQ(FloatToHalf(1.0f + 0x1.8p-11f), 0x3c01);
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-10f + 0x1p-11f), 0x3c02);  // tie: up to even
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x7c00, 0x7c00);
  EXPECT_NE(FloatToHalf(std::numeric_limits<float>::quiet_NaN()) & 0x3ff, 0);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalf(0x1.ffcp-15f), 0x0400);  // subnormal rounding up into the normals
}

TEST(Bf16, RoundTripAndRounding) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = Bf16ToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(f))));
      continue;
    }
    EXPECT_EQ(FloatToBf16(f), b) << b;
  }
  EXPECT_EQ(FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie: to even
  EXPECT_EQ(FloatToBf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie: up to even
  EXPECT_EQ(FloatToBf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(FloatToBf16(std::bit_cast<float>(0x7f7fffffu)), 0x7f80);                     // overflow to infinity
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(std::bit_cast<float>(0x7f800001u)))));  // NaN stays NaN
}

template <typename T>
std::vector<T> Apply(DataType type, RedOp op, const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> d(a.size());
  Reduce(type, op, d.data(), a.data(), b.data(), a.size());
  return d;
}

TEST(Reduce, IntegersWrapAndCompare) {
  const std::vector<int8_t> a = {100, -128, 5, -7}, b = {100, -1, -6, 3};
  EXPECT_EQ(Apply(DataType::kInt8, RedOp::kSum, a, b), (std::vector<int8_t>{-56, 127, -1, -4}));
  EXPECT_EQ(Apply(DataType::kInt8, RedOp::kAvg, a, b), (std::vector<int8_t>{-56, 127, -1, -4}));  // avg sums
  EXPECT_EQ(Apply(DataType::kInt8, RedOp::kProd, a, b), (std::vector<int8_t>{16, -128, -30, -21}));
  EXPECT_EQ(Apply(DataType::kInt8, RedOp::kMax, a, b), (std::vector<int8_t>{100, -1, 5, 3}));
  EXPECT_EQ(Apply(DataType::kInt8, RedOp::kMin, a, b), (std::vector<int8_t>{100, -128, -6, -7}));
  const std::vector<uint8_t> ua = {200, 3}, ub = {100, 250};
  EXPECT_EQ(Apply(DataType::kUint8, RedOp::kSum, ua, ub), (std::vector<uint8_t>{44, 253}));
  EXPECT_EQ(Apply(DataType::kUint8, RedOp::kMax, ua, ub), (std::vector<uint8_t>{200, 250}));
  const std::vector<uint64_t> la = {~0ull, 1ull << 63}, lb = {2, 2};
  EXPECT_EQ(Apply(DataType::kUint64, RedOp::kSum, la, lb), (std::vector<uint64_t>{1, (1ull << 63) + 2}));
  EXPECT_EQ(Apply(DataType::kUint64, RedOp::kProd, la, lb), (std::vector<uint64_t>{~0ull - 1, 0}));
  const std::vector<int32_t> ia = {INT32_MAX, -5}, ib = {1, 7};
  EXPECT_EQ(Apply(DataType::kInt32, RedOp::kSum, ia, ib), (std::vector<int32_t>{INT32_MIN, 2}));
  const std::vector<int64_t> ja = {-9, 9}, jb = {4, -4};
  EXPECT_EQ(Apply(DataType::kInt64, RedOp::kMin, ja, jb), (std::vector<int64_t>{-9, -4}));
  EXPECT_EQ(Apply(DataType::kUint32, RedOp::kMin, std::vector<uint32_t>{7, 0}, std::vector<uint32_t>{3, 9}),
            (std::vector<uint32_t>{3, 0}));
}

TEST(Reduce, FloatsAndAliasing) {
  std::vector<double> a = {1.5, -2, 3}, b = {0.25, 8, -3};
  EXPECT_EQ(Apply(DataType::kFloat64, RedOp::kSum, a, b), (std::vector<double>{1.75, 6, 0}));
  EXPECT_EQ(Apply(DataType::kFloat64, RedOp::kProd, a, b), (std::vector<double>{0.375, -16, -9}));
  std::vector<float> x = {1, 5, -3, 100}, y = {2, 4, -4, 0.5f};
  Reduce(DataType::kFloat32, RedOp::kMax, x.data(), x.data(), y.data(), x.size());  // dst aliases a
  EXPECT_EQ(x, (std::vector<float>{2, 5, -3, 100}));
  Reduce(DataType::kFloat32, RedOp::kMin, y.data(), x.data(), y.data(), x.size());  // dst aliases b
  EXPECT_EQ(y, (std::vector<float>{2, 4, -4, 0.5f}));
}

TEST(Reduce, SixteenBitFloatsRoundOnce) {
  // fp16: 2048 + 1 is not representable; sum rounds to even (2048).
  std::vector<uint16_t> a = {FloatToHalf(2048), FloatToHalf(1.5f), FloatToHalf(-3)};
  std::vector<uint16_t> b = {FloatToHalf(1), FloatToHalf(2.25f), FloatToHalf(7)};
  auto s = Apply(DataType::kFloat16, RedOp::kSum, a, b);
  EXPECT_EQ(HalfToFloat(s[0]), 2048.0f);
  EXPECT_EQ(HalfToFloat(s[1]), 3.75f);
  EXPECT_EQ(HalfToFloat(s[2]), 4.0f);
  auto m = Apply(DataType::kFloat16, RedOp::kMax, a, b);
  EXPECT_EQ(HalfToFloat(m[2]), 7.0f);
  std::vector<uint16_t> c = {FloatToBf16(256), FloatToBf16(3)}, d = {FloatToBf16(1), FloatToBf16(-5)};
  auto p = Apply(DataType::kBfloat16, RedOp::kProd, c, d);
  EXPECT_EQ(Bf16ToFloat(p[0]), 256.0f);
  EXPECT_EQ(Bf16ToFloat(p[1]), -15.0f);
  auto q = Apply(DataType::kBfloat16, RedOp::kSum, c, d);
  EXPECT_EQ(Bf16ToFloat(q[0]), 256.0f);  // 257 rounds to even
}

TEST(Reduce, DivideForAvg) {
  std::vector<int32_t> i = {7, -7, 6};
  DivideBy(DataType::kInt32, i.data(), i.size(), 2);
  EXPECT_EQ(i, (std::vector<int32_t>{3, -3, 3}));  // truncating
  std::vector<uint8_t> u = {255, 1};
  DivideBy(DataType::kUint8, u.data(), u.size(), 4);
  EXPECT_EQ(u, (std::vector<uint8_t>{63, 0}));
  std::vector<float> f = {1, 3};
  DivideBy(DataType::kFloat32, f.data(), f.size(), 3);
  EXPECT_EQ(f[0], 1.0f / 3.0f);
  EXPECT_EQ(f[1], 1.0f);
  std::vector<uint16_t> h = {FloatToHalf(10)};
  DivideBy(DataType::kFloat16, h.data(), 1, 4);
  EXPECT_EQ(HalfToFloat(h[0]), 2.5f);
  std::vector<uint16_t> b = {FloatToBf16(1)};
  DivideBy(DataType::kBfloat16, b.data(), 1, 3);
  EXPECT_EQ(b[0], FloatToBf16(1.0f / 3.0f));
}

TEST(Reduce, EveryTypeAndOpHasAFunction) {
  for (int t = 0; t < kNumDataTypes; ++t) {
    for (int o = 0; o < kNumRedOps; ++o) {
      EXPECT_NE(ReduceFnFor(static_cast<DataType>(t), static_cast<RedOp>(o)), nullptr);
    }
    // 1 + 1 == 2 in every type (bytes of the value 1, little-endian).
    unsigned char one[8] = {}, two[8] = {}, out[8] = {};
    const auto type = static_cast<DataType>(t);
    if (type == DataType::kFloat16) {
      const uint16_t v = FloatToHalf(1), w = FloatToHalf(2);
      std::memcpy(one, &v, 2);
      std::memcpy(two, &w, 2);
    } else if (type == DataType::kBfloat16) {
      const uint16_t v = FloatToBf16(1), w = FloatToBf16(2);
      std::memcpy(one, &v, 2);
      std::memcpy(two, &w, 2);
    } else if (type == DataType::kFloat32) {
      const float v = 1, w = 2;
      std::memcpy(one, &v, 4);
      std::memcpy(two, &w, 4);
    } else if (type == DataType::kFloat64) {
      const double v = 1, w = 2;
      std::memcpy(one, &v, 8);
      std::memcpy(two, &w, 8);
    } else {
      one[0] = 1;
      two[0] = 2;
    }
    Reduce(type, RedOp::kSum, out, one, one, 1);
    EXPECT_EQ(std::memcmp(out, two, static_cast<size_t>(ElemSize(type))), 0) << DataTypeName(type);
  }
}

}  // namespace
}  // namespace gpurun::coll
