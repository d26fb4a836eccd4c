// DirectBatch (coll/gpu/direct_batch.h) without a GPU: which one-shot calls
// may join a launch (one kernel, at most kOneShotBatchCalls calls, no byte
// one reads or writes that an earlier one writes, or reads when it writes)
// and how the calls are laid out on the launch's blocks (consecutive
// ranges, in the order added, with their buffers and sizes).
#include "coll/gpu/direct_batch.h"

#include <gtest/gtest.h>

namespace gpurun::coll {
namespace {

const void* const kOneShot = reinterpret_cast<const void*>(0x1000);
const void* const kOther = reinterpret_cast<const void*>(0x2000);

CallBytes Bytes(uintptr_t read, uintptr_t write, uintptr_t n) { return CallBytes{read, read + n, write, write + n}; }

void AddCall(DirectBatch& b, uintptr_t send, uintptr_t recv, uint64_t n, uint32_t blocks) {
  b.Add(kOneShot, reinterpret_cast<const void*>(send), reinterpret_cast<void*>(recv), n, blocks, 0,
        Bytes(send, recv, n));
}

TEST(DirectBatch, IndependentCallsOfOneKernelJoin) {
  DirectBatch b;
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.Accepts(kOther, Bytes(0x10000, 0x20000, 64)));
  AddCall(b, 0x10000, 0x20000, 64, 1);
  // Reads the first call's input too: reads may overlap.
  EXPECT_TRUE(b.Accepts(kOneShot, Bytes(0x10000, 0x30000, 64)));
  // In place, on a buffer of its own.
  EXPECT_TRUE(b.Accepts(kOneShot, Bytes(0x40000, 0x40000, 64)));
  // Another kernel (type or op) does not.
  EXPECT_FALSE(b.Accepts(kOther, Bytes(0x50000, 0x60000, 64)));
  EXPECT_EQ(b.calls(), 1);
  EXPECT_EQ(b.kernel(), kOneShot);
}

TEST(DirectBatch, DependentCallsWaitForTheNextLaunch) {
  DirectBatch b;
  AddCall(b, 0x10000, 0x20000, 100, 1);
  EXPECT_FALSE(b.Accepts(kOneShot, Bytes(0x20000 + 99, 0x30000, 1))) << "reads what the first writes";
  EXPECT_FALSE(b.Accepts(kOneShot, Bytes(0x30000, 0x10000 + 50, 10))) << "writes what the first reads";
  EXPECT_FALSE(b.Accepts(kOneShot, Bytes(0x30000, 0x1fff0, 0x20))) << "writes what the first writes";
  EXPECT_FALSE(b.Accepts(kOneShot, Bytes(0x20000, 0x20000, 100))) << "the first's output, in place";
  EXPECT_TRUE(b.Accepts(kOneShot, Bytes(0x20000 + 100, 0x10000 + 100, 50))) << "just past both ends";
}

TEST(DirectBatch, AtMostTheBatchRegionsCallsALaunch) {
  DirectBatch b;
  for (int c = 0; c < kOneShotBatchCalls; ++c) {
    ASSERT_TRUE(b.Accepts(kOneShot, Bytes(0x100000 * (2 * c + 1), 0x100000 * (2 * c + 2), 64))) << c;
    AddCall(b, 0x100000 * (2 * c + 1), 0x100000 * (2 * c + 2), 64, 1);
  }
  EXPECT_FALSE(b.Accepts(kOneShot, Bytes(0x7000000, 0x8000000, 64)));
  b.Clear();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.calls(), 0);
  EXPECT_TRUE(b.Accepts(kOther, Bytes(0x7000000, 0x8000000, 64)));
}

TEST(DirectBatch, CallsTakeConsecutiveBlocksInTheOrderAdded) {
  DirectBatch b;
  AddCall(b, 0x10000, 0x20000, 8, 1);
  AddCall(b, 0x30000, 0x40000, 65536, 16);
  AddCall(b, 0x50000, 0x50000, 4100, 2);
  DevOneShotLaunch l{};
  EXPECT_EQ(b.Fill(&l), 19);
  ASSERT_EQ(l.ncalls, 3);
  const uint32_t first[] = {0, 1, 17}, nblocks[] = {1, 16, 2};
  const uint64_t bytes[] = {8, 65536, 4100};
  const uintptr_t send[] = {0x10000, 0x30000, 0x50000}, recv[] = {0x20000, 0x40000, 0x50000};
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE(c);
    EXPECT_EQ(l.call[c].first_block, first[c]);
    EXPECT_EQ(l.call[c].nblocks, nblocks[c]);
    EXPECT_EQ(l.call[c].bytes, bytes[c]);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(l.call[c].send), send[c]);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(l.call[c].recv), recv[c]);
  }
}

TEST(DirectBatch, KeepsTheDivisorOfItsCalls) {
  DirectBatch b;
  b.Add(kOneShot, nullptr, reinterpret_cast<void*>(0x1000), 8, 1, 4, Bytes(0x1000, 0x1000, 8));
  EXPECT_EQ(b.divisor(), 4u);
  b.Clear();
  EXPECT_EQ(b.divisor(), 0u);
}

}  // namespace
}  // namespace gpurun::coll
