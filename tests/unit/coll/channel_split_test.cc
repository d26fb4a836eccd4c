// Channel split: the parts of all channels tile the buffer in order, start on
// 16-byte boundaries, and use whole cells; NCCL's cell sizes.
#include "coll/patterns/channel_split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpurun::coll {
namespace {

const std::vector<uint64_t> kCounts = {0, 1, 7, 1023, 4099, (1u << 20) + 5};

TEST(ChannelSplitTest, PartsTileTheBufferAligned) {
  const std::vector<uint64_t> cells = {16, 64, CellBytes(Func::kAllReduce, Protocol::kSimple, 8),
                                       CellBytes(Func::kAllGather, Protocol::kLL, 3)};
  for (uint64_t count : kCounts) {
    for (int elem : {1, 2, 4, 8, 16}) {
      for (int nchannels : {1, 2, 3, 4, 7, 8, 16, 32}) {
        for (uint64_t cell : cells) {
          SCOPED_TRACE(::testing::Message()
                       << "count=" << count << " elem=" << elem << " channels=" << nchannels << " cell=" << cell);
          const uint64_t cell_elems = cell / elem;
          const int used = ChannelsUsed(count, elem, nchannels, cell);
          EXPECT_LE(used, nchannels);
          uint64_t next = 0;
          for (int c = 0; c < nchannels; ++c) {
            const Range part = ChannelPart(count, elem, nchannels, c, cell);
            EXPECT_EQ(part.offset, next) << "channel " << c;
            if (part.count > 0) {
              EXPECT_EQ(part.offset * elem % kChannelAlignBytes, 0u);
            }
            EXPECT_EQ(part.count > 0, c < used) << "channel " << c;
            // Every part but the last used one is the same whole number of cells.
            if (c + 1 < used) {
              EXPECT_EQ(part.count % cell_elems, 0u);
              EXPECT_EQ(part.count, ChannelPart(count, elem, nchannels, 0, cell).count);
            }
            next += part.count;
          }
          EXPECT_EQ(next, count);
        }
      }
    }
  }
}

TEST(ChannelSplitTest, SmallMessagesUseFewerChannels) {
  // 8 ranks AllReduce Simple: 32 KB of traffic is 16 KB of data per cell.
  const uint64_t cell = CellBytes(Func::kAllReduce, Protocol::kSimple, 8);
  EXPECT_EQ(cell, 16384u);
  EXPECT_EQ(ChannelsUsed(4096, 4, 16, cell), 1);      // 16 KB -> one channel
  EXPECT_EQ(ChannelsUsed(4097, 4, 16, cell), 2);      // one element more -> two
  EXPECT_EQ(ChannelsUsed(1 << 20, 4, 16, cell), 16);  // 4 MB -> all
  EXPECT_EQ(ChannelsUsed(0, 4, 16, cell), 0);
  // 16-byte cells: 25 cells, 2 per channel over 16 channels -> 13 used.
  EXPECT_EQ(ChannelsUsed(100, 4, 16), 13);
  EXPECT_EQ(ChannelPart(100, 4, 16, 12).count, 4u);
  EXPECT_EQ(ChannelPart(100, 4, 16, 13).count, 0u);
}

TEST(ChannelSplitTest, NcclTrafficAndCellSizes) {
  EXPECT_EQ(TrafficPerByte(Func::kAllReduce, 8), 2u);
  EXPECT_EQ(TrafficPerByte(Func::kAllGather, 8), 8u);
  EXPECT_EQ(TrafficPerByte(Func::kReduceScatter, 5), 5u);
  EXPECT_EQ(TrafficPerByte(Func::kBroadcast, 8), 1u);
  EXPECT_EQ(TrafficPerByte(Func::kReduce, 8), 1u);
  EXPECT_EQ(CellBytes(Func::kBroadcast, Protocol::kSimple, 8), 32768u);
  EXPECT_EQ(CellBytes(Func::kAllReduce, Protocol::kLL, 8), 4096u);       // LL counts 4x
  EXPECT_EQ(CellBytes(Func::kAllGather, Protocol::kSimple, 3), 10928u);  // ceil(32768 / 3) up to 16
  EXPECT_EQ(CellBytes(Func::kAllGather, Protocol::kLL128, 4096), 16u);   // never below 16
}

}  // namespace
}  // namespace gpurun::coll
