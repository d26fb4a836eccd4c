// LaunchBatch (coll/gpu/launch_batch.h) without a GPU: which calls may join
// a launch (one kernel, room for the works, no byte one reads or writes
// that an earlier one writes, or reads when it writes), how the works of
// several calls are laid out by block (a lane's works in one block, in the
// order added; lanes in order of first use; every work with its call's
// buffers), and the bytes each collective reads and writes.
#include "coll/gpu/launch_batch.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpurun::coll {
namespace {

const void* const kRing = reinterpret_cast<const void*>(0x1000);
const void* const kOther = reinterpret_cast<const void*>(0x2000);

std::vector<WorkDesc> Works(int nchannels, int first_channel = 0, bool tree = false) {
  std::vector<WorkDesc> w;
  for (int c = 0; c < nchannels; ++c) {
    for (int t = 0; t < (tree ? 2 : 1); ++t) {
      WorkDesc d{};
      d.channel = static_cast<uint16_t>(first_channel + c);
      d.tree = static_cast<uint8_t>(t);
      d.part_offset = static_cast<uint64_t>(c * 10 + t);
      w.push_back(d);
    }
  }
  return w;
}

CallBytes Bytes(uintptr_t read, uintptr_t write, uintptr_t n) { return CallBytes{read, read + n, write, write + n}; }

DevBuffers Buffers(uintptr_t send, uintptr_t recv) {
  return DevBuffers{reinterpret_cast<const void*>(send), reinterpret_cast<void*>(recv)};
}

TEST(LaunchBatch, IndependentCallsOfOneKernelJoin) {
  LaunchBatch b;
  EXPECT_TRUE(b.empty());
  const auto w = Works(2);
  ASSERT_TRUE(b.Accepts(kRing, 2, Bytes(0x10000, 0x20000, 100)));
  b.Add(kRing, false, w.data(), 2, Buffers(0x10000, 0x20000), Bytes(0x10000, 0x20000, 100));
  // Reads the first call's input too: reads may overlap.
  EXPECT_TRUE(b.Accepts(kRing, 2, Bytes(0x10000, 0x30000, 100)));
  // In place, on buffers of its own.
  EXPECT_TRUE(b.Accepts(kRing, 2, Bytes(0x40000, 0x40000, 100)));
  // Another kernel (type, op, or ring against tree) does not.
  EXPECT_FALSE(b.Accepts(kOther, 2, Bytes(0x50000, 0x60000, 100)));
  EXPECT_EQ(b.calls(), 1);
  EXPECT_EQ(b.works(), 2);
}

TEST(LaunchBatch, DependentCallsWaitForTheNextLaunch) {
  LaunchBatch b;
  const auto w = Works(1);
  b.Add(kRing, false, w.data(), 1, Buffers(0x10000, 0x20000), Bytes(0x10000, 0x20000, 100));
  // Reads what the first writes (its last byte, its first byte).
  EXPECT_FALSE(b.Accepts(kRing, 1, Bytes(0x20000 + 99, 0x30000, 1)));
  EXPECT_FALSE(b.Accepts(kRing, 1, Bytes(0x1ff00, 0x30000, 0x101)));
  // Writes what the first reads, or writes.
  EXPECT_FALSE(b.Accepts(kRing, 1, Bytes(0x30000, 0x10000 + 50, 10)));
  EXPECT_FALSE(b.Accepts(kRing, 1, Bytes(0x30000, 0x1fff0, 0x20)));
  // Just past both ends: no shared byte.
  EXPECT_TRUE(b.Accepts(kRing, 1, Bytes(0x20000 + 100, 0x10000 + 100, 50)));
  EXPECT_TRUE(b.Accepts(kRing, 1, Bytes(0x30000, 0x20000 - 8, 8)));
  // Empty ranges never conflict.
  EXPECT_TRUE(b.Accepts(kRing, 1, CallBytes{}));
}

TEST(LaunchBatch, RoomForTheWorks) {
  LaunchBatch b;
  EXPECT_FALSE(b.Accepts(kRing, kMaxDeviceWorks + 1, CallBytes{}));
  EXPECT_TRUE(b.Accepts(kRing, kMaxDeviceWorks, CallBytes{}));
  const auto w = Works(kMaxDeviceWorks - 3);
  b.Add(kRing, false, w.data(), static_cast<int>(w.size()), Buffers(1 << 20, 2 << 20), Bytes(1 << 20, 2 << 20, 64));
  EXPECT_TRUE(b.Accepts(kRing, 3, CallBytes{}));
  EXPECT_FALSE(b.Accepts(kRing, 4, CallBytes{}));
  b.Clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.calls(), 0);
  EXPECT_TRUE(b.Accepts(kOther, kMaxDeviceWorks, CallBytes{}));
}

TEST(LaunchBatch, LanesRunInOneBlockInCallOrder) {
  LaunchBatch b;
  // Call 0 on channels 0..3, call 1 on 0..1, call 2 on 2..5.
  const auto a = Works(4), c = Works(2), d = Works(4, 2);
  b.Add(kRing, false, a.data(), 4, Buffers(0x100, 0x200), CallBytes{});
  b.Add(kRing, false, c.data(), 2, Buffers(0x300, 0x400), CallBytes{});
  b.Add(kRing, false, d.data(), 4, Buffers(0x500, 0x600), CallBytes{});
  DevLaunch l{};
  b.Fill(&l);
  ASSERT_EQ(l.nblocks, 6);
  // Blocks by first use: channels 0, 1, 2, 3 (call 0), then 4, 5 (call 2).
  const std::vector<std::vector<std::pair<int, uintptr_t>>> want = {{{0, 0x100}, {0, 0x300}},
                                                                    {{1, 0x100}, {1, 0x300}},
                                                                    {{2, 0x100}, {2, 0x500}},
                                                                    {{3, 0x100}, {3, 0x500}},
                                                                    {{4, 0x500}},
                                                                    {{5, 0x500}}};
  for (int blk = 0; blk < l.nblocks; ++blk) {
    const auto& expect = want[static_cast<size_t>(blk)];
    ASSERT_EQ(l.block_first[blk + 1] - l.block_first[blk], static_cast<int>(expect.size())) << "block " << blk;
    for (size_t k = 0; k < expect.size(); ++k) {
      const int i = l.block_first[blk] + static_cast<int>(k);
      EXPECT_EQ(l.work[i].channel, expect[k].first) << "block " << blk << " work " << k;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(l.buffers[i].send), expect[k].second) << "block " << blk << " work " << k;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(l.buffers[i].recv), expect[k].second + 0x100);
    }
  }
  EXPECT_EQ(l.block_first[l.nblocks], 10);
}

TEST(LaunchBatch, TreeLanesAreChannelAndTree) {
  LaunchBatch b;
  const auto a = Works(2, 0, true), c = Works(1, 1, true);
  b.Add(kRing, true, a.data(), static_cast<int>(a.size()), Buffers(0x100, 0x200), CallBytes{});
  b.Add(kRing, true, c.data(), static_cast<int>(c.size()), Buffers(0x300, 0x400), CallBytes{});
  DevLaunch l{};
  b.Fill(&l);
  EXPECT_TRUE(b.tree());
  ASSERT_EQ(l.nblocks, 4);  // (0,0) (0,1) (1,0) (1,1)
  const int sizes[] = {1, 1, 2, 2};
  for (int blk = 0; blk < 4; ++blk) {
    EXPECT_EQ(l.block_first[blk + 1] - l.block_first[blk], sizes[blk]) << "block " << blk;
    for (int i = l.block_first[blk]; i < l.block_first[blk + 1]; ++i) {
      EXPECT_EQ(l.work[i].channel * 2 + l.work[i].tree, blk) << "block " << blk;
    }
  }
  EXPECT_EQ(reinterpret_cast<uintptr_t>(l.buffers[l.block_first[3] + 1].send), 0x300u);
}

TEST(LaunchBatch, BytesOfEachCollective) {
  int32_t buf[64];
  CollCall c;
  c.send = buf;
  c.recv = buf + 16;
  c.count = 4;
  c.type = DataType::kInt32;
  const auto at = [&](const int32_t* p) { return reinterpret_cast<uintptr_t>(p); };
  c.func = Func::kAllReduce;
  CallBytes b = BytesOfCall(c, 3, 0);
  EXPECT_EQ(b.read_begin, at(buf));
  EXPECT_EQ(b.read_end, at(buf + 4));
  EXPECT_EQ(b.write_begin, at(buf + 16));
  EXPECT_EQ(b.write_end, at(buf + 20));
  c.func = Func::kAllGather;
  b = BytesOfCall(c, 3, 0);
  EXPECT_EQ(b.read_end, at(buf + 4));
  EXPECT_EQ(b.write_end, at(buf + 16 + 12));
  c.func = Func::kReduceScatter;
  b = BytesOfCall(c, 3, 0);
  EXPECT_EQ(b.read_end, at(buf + 12));
  EXPECT_EQ(b.write_end, at(buf + 20));
  c.func = Func::kBroadcast;
  c.root = 1;
  b = BytesOfCall(c, 3, 0);  // not the root: reads nothing
  EXPECT_EQ(b.read_begin, b.read_end);
  EXPECT_EQ(b.write_end, at(buf + 20));
  b = BytesOfCall(c, 3, 1);
  EXPECT_EQ(b.read_end, at(buf + 4));
  c.func = Func::kReduce;
  b = BytesOfCall(c, 3, 0);  // not the root: writes nothing
  EXPECT_EQ(b.write_begin, b.write_end);
  EXPECT_EQ(b.read_end, at(buf + 4));
  c.recv = nullptr;
  b = BytesOfCall(c, 3, 1);
  EXPECT_EQ(b.write_begin, b.write_end);
}

}  // namespace
}  // namespace gpurun::coll
