// The UCX tag layout (ucx_tag.h) and frame prefixes (ucx_frame.h): pure
// encode/decode, checked over the edges of every field.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "p2p/ucx/ucx_frame.h"
#include "p2p/ucx/ucx_tag.h"

namespace gpurun::p2p {
namespace {

const std::vector<uint32_t> kContexts = {0, 1, 2, 0x7FFF, 0x8000, 0xAAAA, 0x5555, kMaxContext - 1, kMaxContext};
const std::vector<int32_t> kSources = {0, 1, 2, 0x7FFFF, 0x80000, 0xAAAAA, 0x55555, kMaxRanks - 2, kMaxRanks - 1};
const std::vector<int32_t> kTags = {0, 1, 2, 0x7FFFFFF, 0x8000000, 0xAAAAAAA, 0x5555555, kMaxTag - 1, kMaxTag};

TEST(UcxTagTest, LayoutIsFixed) {
  EXPECT_EQ(PackTag(0, 0, 0), 0u);
  EXPECT_EQ(PackTag(1, 0, 0), uint64_t{1} << 48);
  EXPECT_EQ(PackTag(0, 1, 0), uint64_t{1} << 28);
  EXPECT_EQ(PackTag(0, 0, 1), uint64_t{1});
  EXPECT_EQ(PackTag(kMaxContext, 0, 0), 0xFFFF000000000000ull);
  EXPECT_EQ(PackTag(0, kMaxRanks - 1, 0), 0x0000FFFFF0000000ull);
  EXPECT_EQ(PackTag(0, 0, kMaxTag), 0x000000000FFFFFFFull);
  EXPECT_EQ(PackTag(kMaxContext, kMaxRanks - 1, kMaxTag), ~uint64_t{0});
  static_assert(PackTag(0x1234, 0x56789, 0xABCDEF0) == 0x123456789ABCDEF0ull);
}

TEST(UcxTagTest, RoundTripsEveryEdgeCombination) {
  for (uint32_t context : kContexts) {
    for (int32_t source : kSources) {
      for (int32_t tag : kTags) {
        const uint64_t bits = PackTag(context, source, tag);
        const TagFields fields = UnpackTag(bits);
        ASSERT_EQ(fields.context, context);
        ASSERT_EQ(fields.source, source);
        ASSERT_EQ(fields.tag, tag);
        ASSERT_EQ(PackTag(fields.context, fields.source, fields.tag), bits);
      }
    }
  }
}

TEST(UcxTagTest, FieldsDoNotBleedIntoEachOther) {
  // Each field at its maximum with the others at zero covers disjoint bits
  // whose union is the whole word.
  const uint64_t c = PackTag(kMaxContext, 0, 0);
  const uint64_t s = PackTag(0, kMaxRanks - 1, 0);
  const uint64_t t = PackTag(0, 0, kMaxTag);
  EXPECT_EQ(c & s, 0u);
  EXPECT_EQ(c & t, 0u);
  EXPECT_EQ(s & t, 0u);
  EXPECT_EQ(c | s | t, ~uint64_t{0});
}

TEST(UcxTagTest, RandomTriplesRoundTrip) {
  std::mt19937_64 rng(42);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t bits = rng();
    const TagFields f = UnpackTag(bits);
    ASSERT_LE(f.context, kMaxContext);
    ASSERT_GE(f.source, 0);
    ASSERT_LT(f.source, kMaxRanks);
    ASSERT_GE(f.tag, 0);
    ASSERT_LE(f.tag, kMaxTag);
    ASSERT_EQ(PackTag(f.context, f.source, f.tag), bits);
  }
}

TEST(UcxTagTest, HeaderRoundTripAndFits) {
  MatchHeader h{.context = 77, .source = 12345, .tag = 999, .bytes = 1ull << 40};
  EXPECT_TRUE(FitsTag(h));
  const MatchHeader back = HeaderFromTag(PackTag(h), h.bytes);
  EXPECT_EQ(back.context, h.context);
  EXPECT_EQ(back.source, h.source);
  EXPECT_EQ(back.tag, h.tag);
  EXPECT_EQ(back.bytes, h.bytes);

  EXPECT_TRUE(FitsTag({.context = kMaxContext, .source = kMaxRanks - 1, .tag = kMaxTag}));
  EXPECT_FALSE(FitsTag({.context = kMaxContext + 1}));
  EXPECT_FALSE(FitsTag({.source = kMaxRanks}));
  EXPECT_FALSE(FitsTag({.source = -1}));
  EXPECT_FALSE(FitsTag({.tag = kMaxTag + 1}));
  EXPECT_FALSE(FitsTag({.tag = -1}));
}

TEST(UcxFrameTest, EagerPrefixRoundTrips) {
  for (int32_t world : {0, 1, 255, 256, 65535, 1 << 20, 0x7FFFFFFF}) {
    std::array<std::byte, kFramePrefixBytes + 3> frame{};
    WriteEagerPrefix(frame.data(), world);
    for (size_t size : {kFramePrefixBytes, frame.size()}) {
      const auto info = ReadFrame(std::span<const std::byte>(frame.data(), size));
      ASSERT_TRUE(info.has_value());
      EXPECT_EQ(info->kind, FrameKind::kEager);
      EXPECT_EQ(info->world_source, world);
    }
  }
}

TEST(UcxFrameTest, AnnounceRoundTrips) {
  for (uint64_t bytes : {uint64_t{0}, uint64_t{8193}, uint64_t{1} << 32, ~uint64_t{0}}) {
    std::array<std::byte, kAnnounceFrameBytes> frame{};
    WriteAnnounce(frame.data(), 7, bytes);
    const auto info = ReadFrame(frame);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->kind, FrameKind::kAnnounce);
    EXPECT_EQ(info->world_source, 7);
    EXPECT_EQ(info->bulk_bytes, bytes);
  }
}

TEST(UcxFrameTest, FlaggedRoundTrips) {
  for (uint32_t flags : {kFlagSyncNote, kFlagDeviceFin, 0x80000001u}) {
    std::array<std::byte, kFlaggedFrameBytes + 16> frame{};
    WriteFlaggedPrefix(frame.data(), 5, flags);
    for (size_t size : {kFlaggedFrameBytes, frame.size()}) {
      const auto info = ReadFrame(std::span<const std::byte>(frame.data(), size));
      ASSERT_TRUE(info.has_value());
      EXPECT_EQ(info->kind, FrameKind::kFlagged);
      EXPECT_EQ(info->world_source, 5);
      EXPECT_EQ(info->flags, flags);
    }
    EXPECT_FALSE(ReadFrame(std::span<const std::byte>(frame.data(), kFlaggedFrameBytes - 1)));  // short
  }
  std::array<std::byte, kFlaggedFrameBytes> none{};
  WriteFlaggedPrefix(none.data(), 5, 0);
  EXPECT_FALSE(ReadFrame(none));  // a flagged frame says which flags
}

TEST(UcxFrameTest, FlagsAreNotPartOfTheTag) {
  const MatchHeader flagged{.context = 2, .source = 3, .tag = 4, .flags = kFlagSyncNote, .bytes = 8};
  EXPECT_TRUE(FitsTag(flagged));
  EXPECT_EQ(PackTag(flagged), PackTag(2, 3, 4));
  EXPECT_EQ(HeaderFromTag(PackTag(flagged), 8).flags, 0u);
}

TEST(UcxFrameTest, IsLittleEndian) {
  std::array<std::byte, kAnnounceFrameBytes> frame{};
  WriteAnnounce(frame.data(), 0x01020304, 0x1122334455667788ull);
  EXPECT_EQ(frame[0], std::byte{'G'});
  EXPECT_EQ(frame[1], std::byte{'R'});
  EXPECT_EQ(frame[2], std::byte{kFrameVersion});
  EXPECT_EQ(frame[3], std::byte{2});
  EXPECT_EQ(frame[4], std::byte{0x04});
  EXPECT_EQ(frame[7], std::byte{0x01});
  EXPECT_EQ(frame[8], std::byte{0x88});
  EXPECT_EQ(frame[15], std::byte{0x11});
}

TEST(UcxFrameTest, RejectsWhatIsNotAFrame) {
  std::array<std::byte, kAnnounceFrameBytes> good{};
  WriteAnnounce(good.data(), 3, 100);
  EXPECT_FALSE(ReadFrame(std::span<const std::byte>(good.data(), kFramePrefixBytes - 1)));
  EXPECT_FALSE(ReadFrame(std::span<const std::byte>(good.data(), kAnnounceFrameBytes - 1)));  // short announce
  for (int i : {0, 1, 2, 3}) {
    auto bad = good;
    bad[i] ^= std::byte{0x40};
    EXPECT_FALSE(ReadFrame(bad)) << "byte " << i;
  }
  auto negative = good;
  negative[7] = std::byte{0x80};  // world rank with the sign bit
  EXPECT_FALSE(ReadFrame(negative));
  std::array<std::byte, kFramePrefixBytes + 9> long_announce{};
  WriteAnnounce(long_announce.data(), 3, 100);
  EXPECT_FALSE(ReadFrame(long_announce));
}

}  // namespace
}  // namespace gpurun::p2p
