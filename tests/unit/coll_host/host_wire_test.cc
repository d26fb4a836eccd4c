// LL / LL128 packing of one step on the host (coll/host/host_wire.h):
// partial last lines, the flags of each step, LL's clean rule, and LL's
// layout (consecutive steps' first lines side by side).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "coll/host/host_wire.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kSlotBytes = 1024;
constexpr uint64_t kFifoBytes = kFifoSteps * kSlotBytes;
constexpr uint64_t kLines = kSlotBytes / sizeof(LLLine);  // LL lines per step

template <typename P>
void RoundTrip(uint64_t bytes, uint64_t step) {
  alignas(128) static std::byte fifo[kFifoBytes];
  std::memset(fifo, 0, sizeof(fifo));
  std::vector<std::byte> in(bytes), out(bytes + 1, std::byte{0x5a});
  for (uint64_t i = 0; i < bytes; ++i) in[i] = static_cast<std::byte>(i * 7 + 1);
  HostWire<P>::Pack(fifo, kFifoBytes, in.data(), bytes, step);
  int waits = 0;
  const Status s = HostWire<P>::Unpack(fifo, kFifoBytes, out.data(), bytes, step, [&](auto&&) {
    ++waits;
    return TimeoutError("a line was not there");
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(waits, 0);
  EXPECT_EQ(std::memcmp(in.data(), out.data(), bytes), 0);
  EXPECT_EQ(out[bytes], std::byte{0x5a}) << "wrote past the data";
  // The next use of the slot (step + kFifoSteps) does not see this data as its own.
  if (bytes > 0) {
    const Status next = HostWire<P>::Unpack(fifo, kFifoBytes, out.data(), bytes, step + kFifoSteps,
                                            [](auto&&) { return TimeoutError("not ready"); });
    EXPECT_EQ(next.code(), grTimeout);
    // Nor does the neighbouring step.
    const Status other = HostWire<P>::Unpack(fifo, kFifoBytes, out.data(), bytes, step + 1,
                                             [](auto&&) { return TimeoutError("not ready"); });
    EXPECT_EQ(other.code(), grTimeout);
  }
}

TEST(HostWire, LLRoundTripsPartialLines) {
  for (uint64_t bytes : {0, 1, 7, 8, 9, 100, 512}) RoundTrip<ProtoLL>(bytes, 5);
}

TEST(HostWire, LL128RoundTripsPartialLines) {
  for (uint64_t bytes : {0, 1, 119, 120, 121, 960}) RoundTrip<ProtoLL128>(bytes, 5);
}

// GPURUN_FIRST_STEP's start (coll/ll_start.h): slot j's lines hold the
// flag of step 2^31 + j, the first step of slot j after its clean-up at
// 2^31 - 8 + j. Small steps (one line each) up to 2^31 - 1, the clean-ups
// among them, must leave no line that reads as step 2^31 + j's before that
// step is packed; without the clean-up every line but one would.
TEST(HostWire, LLCleanUpClearsAFirstStepStart) {
  alignas(16) static std::byte fifo[kFifoBytes];
  const uint64_t first = (uint64_t{1} << 31) - 24;
  HostWire<ProtoLL>::StartAt(fifo, kFifoBytes, first);
  const auto* lines = reinterpret_cast<const LLLine*>(fifo);
  const std::byte one[1] = {std::byte{7}};
  for (uint64_t step = first; step < (uint64_t{1} << 31); ++step) {
    if (step == first) {  // the start holds the later steps' flags
      uint64_t v;
      EXPECT_TRUE(lines[HostWire<ProtoLL>::LineIndex(0, 1, kLines)].read(LLFlag(uint64_t{1} << 31), &v));
    }
    HostWire<ProtoLL>::Pack(fifo, kFifoBytes, one, sizeof(one), step);
  }
  for (uint64_t step = uint64_t{1} << 31; step < (uint64_t{1} << 31) + kFifoSteps; ++step) {
    for (uint64_t j = 0; j < kLines; ++j) {
      uint64_t v;
      EXPECT_FALSE(lines[HostWire<ProtoLL>::LineIndex(step, j, kLines)].read(LLFlag(step), &v))
          << "line " << j << " of step " << step << " reads as ready before it is written";
    }
  }
}

TEST(HostWire, LLCleanStepRewritesTheWholeSlot) {
  alignas(16) static std::byte fifo[kFifoBytes];
  std::memset(fifo, 0, sizeof(fifo));
  const uint64_t step = kLLCleanMask;  // LLNeedsClean
  ASSERT_TRUE(LLNeedsClean(step));
  const std::byte data[3] = {std::byte{1}, std::byte{2}, std::byte{3}};
  HostWire<ProtoLL>::Pack(fifo, kFifoBytes, data, sizeof(data), step);
  const auto* lines = reinterpret_cast<const LLLine*>(fifo);
  for (uint64_t j = 0; j < kSlotBytes / sizeof(LLLine); ++j) {
    uint64_t v = 1;
    EXPECT_TRUE(lines[HostWire<ProtoLL>::LineIndex(step, j, kLines)].read(LLFlag(step), &v)) << j;
    EXPECT_EQ(v, j == 0 ? uint64_t{0x030201} : 0u) << j;
  }
  // No other step's line was touched.
  uint64_t touched = 0;
  for (uint64_t i = 0; i < kFifoBytes / sizeof(LLLine); ++i) touched += lines[i].word[1] != 0 ? 1 : 0;
  EXPECT_EQ(touched, kSlotBytes / sizeof(LLLine));
  // An ordinary step leaves the lines it does not use alone.
  alignas(16) static std::byte other[kFifoBytes];
  std::memset(other, 0, sizeof(other));
  HostWire<ProtoLL>::Pack(other, kFifoBytes, data, sizeof(data), 6);
  uint64_t v;
  EXPECT_FALSE(reinterpret_cast<const LLLine*>(other)[HostWire<ProtoLL>::LineIndex(6, 1, kLines)].read(LLFlag(6), &v));
}

TEST(HostWire, LLFirstLinesInterleavedByCacheLineTheRestContiguous) {
  constexpr uint64_t kShared = HostWire<ProtoLL>::kLLSharedLines;
  constexpr uint64_t kUnit = HostWire<ProtoLL>::kLLUnitLines;
  static_assert(kUnit * sizeof(LLLine) == 64, "a unit is one cache line");
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, 0, kLines), 0u);
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, 1, kLines), 1u) << "a step's first lines share its cache line";
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, kUnit - 1, kLines), kUnit - 1);
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(1, 0, kLines), kUnit) << "the next step starts the next cache line";
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(kFifoSteps + 3, 0, kLines), 3 * kUnit) << "a slot is reused every kFifoSteps";
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, kUnit, kLines), kFifoSteps * kUnit)
      << "a step's second unit after every step's first";
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(2, kUnit + 1, kLines), (kFifoSteps + 2) * kUnit + 1);
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, kShared, kLines), kShared * kFifoSteps) << "then step 0's slot";
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(0, kShared + 1, kLines), kShared * kFifoSteps + 1);
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(1, kShared, kLines), kShared * kFifoSteps + kLines - kShared);
  // A FIFO with fewer lines per step than a unit interleaves them line by line.
  EXPECT_EQ(HostWire<ProtoLL>::LineIndex(3, 1, 2), kFifoSteps + 3);
  for (uint64_t step_lines : {uint64_t{1}, uint64_t{2}, kUnit, kUnit + 1, kUnit + 3, kShared - 1, kShared, kLines}) {
    std::vector<int> seen(kFifoSteps * step_lines, 0);
    for (uint64_t step = 0; step < kFifoSteps; ++step) {
      for (uint64_t j = 0; j < step_lines; ++j) ++seen[HostWire<ProtoLL>::LineIndex(step, j, step_lines)];
    }
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], 1) << i << " with " << step_lines << " lines per step";
  }
  // Eight consecutive 32-byte steps fill the first 512 bytes, one cache line each, all readable.
  alignas(128) static std::byte fifo[kFifoBytes];
  std::memset(fifo, 0, sizeof(fifo));
  constexpr uint64_t kBytes = kUnit * HostWire<ProtoLL>::kLineData;
  for (uint64_t step = 16; step < 16 + kFifoSteps; ++step) {
    uint64_t value[kUnit];
    for (uint64_t k = 0; k < kUnit; ++k) value[k] = step * 3 + k;
    HostWire<ProtoLL>::Pack(fifo, kFifoBytes, reinterpret_cast<const std::byte*>(value), kBytes, step);
  }
  for (uint64_t step = 16; step < 16 + kFifoSteps; ++step) {
    uint64_t got[kUnit] = {};
    const Status s = HostWire<ProtoLL>::Unpack(fifo, kFifoBytes, reinterpret_cast<std::byte*>(got), kBytes, step,
                                               [](auto&&) { return TimeoutError("not ready"); });
    ASSERT_TRUE(s.ok()) << s.ToString();
    for (uint64_t k = 0; k < kUnit; ++k) EXPECT_EQ(got[k], step * 3 + k);
  }
  const auto* lines = reinterpret_cast<const LLLine*>(fifo);
  for (uint64_t i = 0; i < kFifoSteps * kUnit; ++i) {
    EXPECT_EQ(lines[i].word[1], LLFlag(16 + i / kUnit)) << "line " << i << " is step " << 16 + i / kUnit << "'s";
  }
  EXPECT_EQ(lines[kFifoSteps * kUnit].word[1], 0u) << "nothing past the first 512 bytes";
}

}  // namespace
}  // namespace gpurun::coll
