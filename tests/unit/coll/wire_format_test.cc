// Wire formats in one thread: byte layout, encode/decode round trips, flags of
// earlier steps never matching (including across the 32-bit wrap of LL
// flags, which the clean rule handles), FIFO byte arithmetic.
#include "coll/wire_format.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace gpurun::coll {
namespace {

constexpr uint64_t k2To32 = uint64_t{1} << 32;

static_assert(std::is_trivially_copyable_v<LLLine>);
static_assert(std::is_trivially_copyable_v<LL128Line>);
static_assert(std::is_trivially_copyable_v<StepCounter>);
static_assert(ProtoLL::kId == Protocol::kLL && std::is_same_v<ProtoLL::Line, LLLine>);
static_assert(ProtoLL128::kId == Protocol::kLL128 && std::is_same_v<ProtoLL128::Line, LL128Line>);
static_assert(ProtoSimple::kId == Protocol::kSimple);

TEST(WireFormatTest, FifoGeometryIsNcclDefaults) {
  EXPECT_EQ(kFifoSteps, 8);
  EXPECT_EQ(StepBytes(kLLDefaultBufferBytes), 65536u);
  EXPECT_EQ(StepBytes(kLL128DefaultBufferBytes), 614400u);
  EXPECT_EQ(StepBytes(kSimpleDefaultBufferBytes), 524288u);
  EXPECT_EQ(StepLines(Protocol::kLL, kLLDefaultBufferBytes), 4096u);
  EXPECT_EQ(StepLines(Protocol::kLL128, kLL128DefaultBufferBytes), 4800u);
  // Usable bytes per step: LL half of each line, LL128 120 of 128, Simple all.
  EXPECT_EQ(StepDataBytes(Protocol::kLL, kLLDefaultBufferBytes), 32768u);
  EXPECT_EQ(StepDataBytes(Protocol::kLL128, kLL128DefaultBufferBytes), 576000u);
  EXPECT_EQ(StepDataBytes(Protocol::kSimple, kSimpleDefaultBufferBytes), 524288u);
  for (Protocol p : {Protocol::kLL, Protocol::kLL128, Protocol::kSimple}) {
    EXPECT_TRUE(IsValidBufferBytes(p, GeometryOf(p).default_buffer_bytes));
    EXPECT_FALSE(IsValidBufferBytes(p, 0));
    EXPECT_FALSE(IsValidBufferBytes(p, 1000));
  }
  EXPECT_TRUE(IsValidBufferBytes(Protocol::kLL, 8 * 16 * 3));
  EXPECT_FALSE(IsValidBufferBytes(Protocol::kLL128, 8 * 16 * 3));
}

TEST(WireFormatTest, LinesForBytes) {
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 0), 0u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 1), 1u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 8), 1u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 9), 2u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 1 << 20), 131072u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL128, 120), 1u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL128, 121), 2u);
  EXPECT_EQ(LinesForBytes(Protocol::kLL128, 1 << 20), 8739u);
  // A full step's data fills its lines exactly.
  EXPECT_EQ(LinesForBytes(Protocol::kLL, 32768), StepLines(Protocol::kLL, kLLDefaultBufferBytes));
  EXPECT_EQ(LinesForBytes(Protocol::kLL128, 576000), StepLines(Protocol::kLL128, kLL128DefaultBufferBytes));
}

TEST(WireFormatTest, SlotsAndCredit) {
  EXPECT_EQ(SlotOffset(0, kLLDefaultBufferBytes), 0u);
  EXPECT_EQ(SlotOffset(9, kLLDefaultBufferBytes), 65536u);
  EXPECT_EQ(SlotOffset(k2To32 + 7, kSimpleDefaultBufferBytes), 7u * 524288);
  for (uint64_t step = 0; step < 8; ++step) EXPECT_TRUE(SlotFree(step, 0));
  EXPECT_FALSE(SlotFree(8, 0));
  EXPECT_TRUE(SlotFree(12, 5));
  EXPECT_FALSE(SlotFree(13, 5));
}

TEST(WireFormatTest, LLLineLayoutAndRoundTrip) {
  LLLine line;
  line.clear();
  line.write(0x1122334455667788ull, LLFlag(41));
  uint32_t words[4];
  std::memcpy(words, &line, sizeof(words));
  EXPECT_EQ(words[0], 0x55667788u);  // data_lo
  EXPECT_EQ(words[1], 42u);          // flag = step + 1
  EXPECT_EQ(words[2], 0x11223344u);  // data_hi
  EXPECT_EQ(words[3], 42u);
  uint64_t data = 0;
  ASSERT_TRUE(line.read(42, &data));
  EXPECT_EQ(data, 0x1122334455667788ull);
  EXPECT_FALSE(line.read(41, &data));
  EXPECT_FALSE(line.read(43, &data));
}

TEST(WireFormatTest, LLNeedsBothFlags) {
  LLLine line;
  line.write(7, 5);
  line.half[1] = LLHalf(0, 4);  // second half still from the previous step
  uint64_t data = 0;
  EXPECT_FALSE(line.read(5, &data));
  line.half[1] = LLHalf(0, 5);
  line.half[0] = LLHalf(7, 4);  // first half behind
  EXPECT_FALSE(line.read(5, &data));
}

TEST(WireFormatTest, ClearedLinesMatchNoStep) {
  LLLine ll;
  ll.write(~0ull, 3);
  ll.clear();
  LL128Line ll128;
  ll128.clear();
  uint64_t data[kLL128DataWords];
  for (uint64_t step = 0; step < 100000; ++step) {
    ASSERT_FALSE(ll.read(LLFlag(step), data));
    ASSERT_FALSE(ll128.read(LL128Flag(step), data));
  }
}

TEST(WireFormatTest, EarlierStepsNeverMatch) {
  // A slot is reused every kFifoSteps steps: a line left from step s must not
  // validate at s + 8k, also across the 32-bit wrap of LL flags.
  for (uint64_t s : {uint64_t{0}, uint64_t{7}, (k2To32 >> 1) - 9, k2To32 - 9, k2To32 - 1, k2To32, 2 * k2To32 + 3}) {
    LLLine ll;
    ll.write(s, LLFlag(s));
    LL128Line ll128;
    const std::vector<uint64_t> words(kLL128DataWords, s);
    ll128.write(words.data(), LL128Flag(s));
    uint64_t data[kLL128DataWords];
    ASSERT_TRUE(ll.read(LLFlag(s), data));
    ASSERT_TRUE(ll128.read(LL128Flag(s), data));
    for (uint64_t k = 1; k <= 4096; ++k) {
      ASSERT_FALSE(ll.read(LLFlag(s + kFifoSteps * k), data)) << s << " + 8*" << k;
      ASSERT_FALSE(ll128.read(LL128Flag(s + kFifoSteps * k), data)) << s << " + 8*" << k;
    }
  }
  // LL flags identify a step within any 2^32 - 1 consecutive steps; exactly
  // 2^32 steps later the flag repeats, which is what the clean rule is for.
  EXPECT_EQ(LLFlag(0), 1u);
  EXPECT_EQ(LLFlag(k2To32 - 2), 0xffffffffu);
  EXPECT_NE(LLFlag(5), LLFlag(5 + k2To32 - 1));
  EXPECT_EQ(LLFlag(5), LLFlag(5 + k2To32));
}

TEST(WireFormatTest, LLCleanStepsCoverEverySlotEvery2To31Steps) {
  for (uint64_t base : {uint64_t{0}, k2To32 >> 1, k2To32, 5 * (k2To32 >> 1)}) {
    std::vector<int> slots;
    for (uint64_t s = base + 0x7fffff00; s < base + 0x80000100; ++s) {
      if (LLNeedsClean(s)) slots.push_back(static_cast<int>(s % kFifoSteps));
    }
    EXPECT_EQ(slots, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7})) << base;
  }
  EXPECT_FALSE(LLNeedsClean(0));
  EXPECT_FALSE(LLNeedsClean(k2To32 - 9));
  EXPECT_TRUE(LLNeedsClean(k2To32 - 1));
}

// A slot of 4 LL lines. A sender that sends one line per step leaves lines
// 1-3 with the flag of step 8 (slot 0); 2^32 steps later that flag is
// current again. With the clean rule, those lines carry a recent flag by then.
TEST(WireFormatTest, LLCleanRuleStopsStaleMatchesAfterWrap) {
  constexpr int kLines = 4;
  const uint64_t first = 8, target = first + k2To32;  // both in slot 0
  for (bool clean : {false, true}) {
    LLLine slot[kLines];
    for (LLLine& l : slot) l.write(0xdead, LLFlag(first));  // a full step at `first`
    // Between `first` and `target` only the cleaning steps of slot 0 touch
    // lines 1-3 (the others write line 0 alone): the first step of each clean
    // window, 0x7ffffff8 + m * 2^31.
    if (clean) {
      for (uint64_t s = kLLCleanMask; s < target; s += k2To32 >> 1) {
        ASSERT_TRUE(LLNeedsClean(s));
        ASSERT_EQ(s % kFifoSteps, 0u);
        for (int i = 1; i < kLines; ++i) slot[i].write(0, LLFlag(s));
      }
    }
    uint64_t data = 0;
    EXPECT_EQ(slot[2].read(LLFlag(target), &data), !clean) << (clean ? "cleaned" : "not cleaned");
  }
}

TEST(WireFormatTest, LL128LayoutAndRoundTrip) {
  EXPECT_EQ(LL128LaneWord(0), 0);
  EXPECT_EQ(LL128LaneWord(kLL128FlagLane), 14);  // lane 7: data word 14, then the flag
  EXPECT_EQ(kLL128FlagWord, 2 * kLL128FlagLane + 1);
  std::vector<uint64_t> in(kLL128DataWords);
  for (int i = 0; i < kLL128DataWords; ++i) in[i] = 0x0101010101010101ull * (i + 1);
  LL128Line line;
  line.clear();
  line.write(in.data(), LL128Flag(99));
  for (int i = 0; i < kLL128DataWords; ++i) EXPECT_EQ(line.word[i], in[i]);
  EXPECT_EQ(line.word[kLL128FlagWord], 100u);
  std::vector<uint64_t> out(kLL128DataWords, 0);
  EXPECT_FALSE(line.read(LL128Flag(98), out.data()));
  ASSERT_TRUE(line.read(LL128Flag(99), out.data()));
  EXPECT_EQ(out, in);
}

TEST(WireFormatTest, StepCounter) {
  StepCounter counter;
  counter.clear();
  EXPECT_EQ(counter.load(), 0u);
  counter.post(k2To32 + 3);
  EXPECT_EQ(counter.load(), k2To32 + 3);
  EXPECT_EQ(sizeof(StepCounter), 128u);  // its own cache line (NCCL CACHE_LINE_SIZE)
}

}  // namespace
}  // namespace gpurun::coll
