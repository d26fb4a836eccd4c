// The one-shot allreduce's call flags, parities and slot sizes
// (coll/device/oneshot_launch.h): no flag is 0 (zeroed scratch), calls of
// one parity (2 apart in the large region, kOneShotBatchParities apart in
// the batch region: the same slots) never share a flag, also across the
// flag cycle's wrap.
#include "coll/device/oneshot_launch.h"

#include <gtest/gtest.h>

namespace gpurun::coll {
namespace {

TEST(OneShotFlags, FirstCalls) {
  EXPECT_EQ(OneShotFlag(0), 1u);
  EXPECT_EQ(OneShotFlag(1), 2u);
  EXPECT_EQ(OneShotParity(0), 0u);
  EXPECT_EQ(OneShotParity(1), 1u);
  EXPECT_EQ(OneShotParity(2), 0u);
  EXPECT_EQ(OneShotParity(15, kOneShotBatchParities), 15u);
  EXPECT_EQ(OneShotParity(16, kOneShotBatchParities), 0u);
  EXPECT_EQ(OneShotParity(~uint64_t{0}, kOneShotBatchParities), 15u);
}

// The reuse rule of the batch region (P >= 2K).
TEST(OneShotFlags, BatchParitiesAllowAnyCutOfTheCalls) {
  EXPECT_GE(kOneShotBatchParities, 2u * static_cast<uint32_t>(kOneShotBatchCalls));
}

TEST(OneShotFlags, NeverZeroAndDistinctPerParityAcrossTheWrap) {
  const uint64_t wraps[] = {kOneShotFlagCycle, 2 * kOneShotFlagCycle, uint64_t{1} << 32, ~uint64_t{0} - 8};
  for (uint64_t around : wraps) {
    for (uint64_t call = around - 6; call != around + 6; ++call) {
      SCOPED_TRACE(call);
      EXPECT_NE(OneShotFlag(call), 0u);
      EXPECT_NE(OneShotFlag(call), OneShotFlag(call + 2)) << "calls of one parity share the slots";
      EXPECT_NE(OneShotFlag(call), OneShotFlag(call + 1));
      for (uint64_t apart = kOneShotBatchParities; apart <= 4 * kOneShotBatchParities; apart += kOneShotBatchParities) {
        EXPECT_NE(OneShotFlag(call), OneShotFlag(call + apart)) << "batch calls of one parity share the slots";
      }
    }
  }
  EXPECT_EQ(OneShotFlag(kOneShotFlagCycle - 1), 0xFFFFFFFEu) << "the largest flag";
  EXPECT_EQ(OneShotFlag(kOneShotFlagCycle), 1u) << "then the cycle starts again";
}

TEST(OneShotFlags, SlotBytesAreLinesOfSixteen) {
  EXPECT_EQ(OneShotSlotBytes(0), 0u);
  EXPECT_EQ(OneShotSlotBytes(1), 16u);
  EXPECT_EQ(OneShotSlotBytes(8), 16u);
  EXPECT_EQ(OneShotSlotBytes(9), 32u);
  EXPECT_EQ(OneShotSlotBytes(256 * 1024), 512u * 1024);
}

}  // namespace
}  // namespace gpurun::coll
