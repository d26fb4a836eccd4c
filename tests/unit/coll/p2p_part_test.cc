// The split of a stream-ordered point-to-point message over a connection's
// channels (coll/device/p2p_launch.h), which the sending and the receiving
// kernel compute independently: the parts tile the message exactly, in
// channel order, each 16-byte aligned, and every channel takes at least one
// step (its header's) even with nothing to carry.
#include "coll/device/p2p_launch.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace gpurun::coll {
namespace {

TEST(P2pPartTest, PartsTileTheMessageInChannelOrder) {
  for (uint64_t bytes : {0ull, 1ull, 15ull, 16ull, 17ull, 1000ull, 4096ull + 3, (40ull << 20) + 12, 1ull << 33}) {
    for (int nch = 1; nch <= kMaxP2pChannels; ++nch) {
      uint64_t next = 0;
      for (int c = 0; c < nch; ++c) {
        const P2pPart p = P2pChannelPart(bytes, nch, c);
        ASSERT_EQ(p.offset, next) << bytes << " B, " << nch << " channels, channel " << c;
        ASSERT_TRUE(p.offset % 16 == 0 || p.bytes == 0) << bytes << " B channel " << c;
        next += p.bytes;
      }
      ASSERT_EQ(next, bytes) << bytes << " B over " << nch << " channels";
    }
  }
}

TEST(P2pPartTest, EveryChannelTakesAtLeastTheHeaderStep) {
  const uint64_t buffer = 512 * 1024;  // 64 KiB steps
  EXPECT_EQ(P2pPartSteps(0, buffer), 1u);
  EXPECT_EQ(P2pPartSteps(1, buffer), 1u);
  EXPECT_EQ(P2pPartSteps(65536, buffer), 1u);
  EXPECT_EQ(P2pPartSteps(65537, buffer), 2u);
  EXPECT_EQ(P2pPartSteps(40ull << 20, buffer), 640u);
}

TEST(P2pPartTest, SmallMessagesUseTheFirstChannels) {
  // 40 bytes over 32 channels: 16, 16, 8, then nothing.
  EXPECT_EQ(P2pChannelPart(40, 32, 0).bytes, 16u);
  EXPECT_EQ(P2pChannelPart(40, 32, 1).bytes, 16u);
  EXPECT_EQ(P2pChannelPart(40, 32, 2).bytes, 8u);
  EXPECT_EQ(P2pChannelPart(40, 32, 3).bytes, 0u);
  EXPECT_EQ(P2pChannelPart(40, 32, 31).offset, 40u);
}

}  // namespace
}  // namespace gpurun::coll
