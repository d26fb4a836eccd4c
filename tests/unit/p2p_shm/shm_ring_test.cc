// The SPSC cell ring: wrap-around with skip cells, full detection, and a
// two-thread stress that checks order and contents.
#include "p2p/shm/shm_ring.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace gpurun::p2p::shm {
namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// A zero-filled ring in ordinary memory.
class TestRing {
 public:
  explicit TestRing(uint64_t capacity)
      : memory_(static_cast<std::byte*>(std::aligned_alloc(kCacheLine, RingBytes(capacity)))),
        view_{memory_.get(), capacity} {
    std::memset(memory_.get(), 0, RingBytes(capacity));
  }
  RingView view() const { return view_; }

 private:
  std::unique_ptr<std::byte, FreeDeleter> memory_;
  RingView view_;
};

bool Put(RingProducer& out, uint32_t length, uint8_t fill) {
  CellHeader* cell = out.Reserve(length);
  if (cell == nullptr) return false;
  cell->kind = CellKind::kEager;
  std::memset(cell->payload(), fill, length);
  out.Commit();
  return true;
}

TEST(ShmRingTest, CellArithmetic) {
  EXPECT_EQ(CellBytes(0), 64u);
  EXPECT_EQ(CellBytes(32), 64u);
  EXPECT_EQ(CellBytes(33), 128u);
  EXPECT_EQ(MaxCellPayload(1024), 224u);
}

TEST(ShmRingTest, EmptyRingHasNothing) {
  TestRing ring(1024);
  RingConsumer in(ring.view());
  EXPECT_EQ(in.Peek(), nullptr);
}

TEST(ShmRingTest, FillsUpThenAcceptsAfterPop) {
  TestRing ring(1024);
  RingProducer out(ring.view());
  RingConsumer in(ring.view());
  int accepted = 0;
  while (Put(out, 32, static_cast<uint8_t>(accepted))) ++accepted;
  EXPECT_EQ(accepted, 1024 / 64);
  const CellHeader* cell = in.Peek();
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(static_cast<uint8_t>(cell->payload()[0]), 0);
  in.Pop();
  EXPECT_TRUE(Put(out, 32, 99));
  EXPECT_FALSE(Put(out, 32, 100));
}

TEST(ShmRingTest, WrapsWithSkipCells) {
  TestRing ring(1024);
  RingProducer out(ring.view());
  RingConsumer in(ring.view());
  // Sizes chosen so that cells regularly do not fit before the end.
  const uint32_t lengths[] = {100, 200, 30, 224, 0, 150};
  uint8_t next_put = 0;
  uint8_t next_get = 0;
  for (int round = 0; round < 200; ++round) {
    const uint32_t length = lengths[round % 6];
    while (!Put(out, length, next_put)) {
      const CellHeader* cell = in.Peek();
      ASSERT_NE(cell, nullptr) << "full ring with nothing to consume";
      ASSERT_EQ(cell->kind, CellKind::kEager);
      for (uint32_t i = 0; i < cell->length; ++i) ASSERT_EQ(static_cast<uint8_t>(cell->payload()[i]), next_get);
      ++next_get;
      in.Pop();
    }
    ++next_put;
  }
  while (const CellHeader* cell = in.Peek()) {
    if (cell->length > 0) {
      EXPECT_EQ(static_cast<uint8_t>(cell->payload()[0]), next_get);
    }
    ++next_get;
    in.Pop();
  }
  EXPECT_EQ(next_get, next_put);
}

// Cells start on any cache line, also where a larger cell's payload was: a
// payload of 0xff bytes (a "ready" byte on every line) must never pass for a
// cell once consumed.
TEST(ShmRingTest, OldPayloadNeverLooksLikeACell) {
  TestRing ring(1024);
  RingProducer out(ring.view());
  RingConsumer in(ring.view());
  // A lap of 4-line cells full of 0xff, each consumed.
  for (int big = 0; big < 4; ++big) {
    ASSERT_TRUE(Put(out, 224, 0xff));
    ASSERT_NE(in.Peek(), nullptr);
    in.Pop();
  }
  // Next lap: 1-line cells, every fourth on an old header, the others on old payload.
  for (int small = 0; small < 16; ++small) {
    EXPECT_EQ(in.Peek(), nullptr) << "line " << small;
    ASSERT_TRUE(Put(out, 0, 0));
    const CellHeader* cell = in.Peek();
    ASSERT_NE(cell, nullptr);
    EXPECT_EQ(cell->length, 0u);
    in.Pop();
  }
  EXPECT_EQ(in.Peek(), nullptr);
}

// Cells consumed with Advance keep their room until Release; a consumer that
// has consumed a full ring that way must not meet its own cells again.
TEST(ShmRingTest, DeferredReleaseOfAFullRing) {
  TestRing ring(1024);
  RingProducer out(ring.view());
  RingConsumer in(ring.view());
  uint8_t next_put = 0, next_get = 0;
  for (int round = 0; round < 5; ++round) {
    while (Put(out, 32, next_put)) ++next_put;  // fills the ring
    EXPECT_EQ(in.unreleased(), 0u);
    while (const CellHeader* cell = in.Peek()) {
      ASSERT_EQ(static_cast<uint8_t>(cell->payload()[0]), next_get) << "round " << round;
      ++next_get;
      in.Advance();
    }
    EXPECT_EQ(next_get, next_put) << "round " << round;
  }
  in.Release();
  EXPECT_EQ(in.unreleased(), 0u);
}

TEST(ShmRingTest, TwoThreadsKeepOrderAndContents) {
  constexpr uint64_t kCapacity = 4096;
  constexpr uint32_t kMessages = 50000;
  TestRing ring(kCapacity);
  std::thread producer([&] {
    RingProducer out(ring.view());
    for (uint32_t seq = 0; seq < kMessages; ++seq) {
      const uint32_t length = 4 + seq % 500;
      CellHeader* cell;
      while ((cell = out.Reserve(length)) == nullptr) std::this_thread::yield();
      cell->kind = CellKind::kEager;
      std::memcpy(cell->payload(), &seq, 4);
      std::memset(cell->payload() + 4, static_cast<int>(seq & 0xff), length - 4);
      out.Commit();
    }
  });
  RingConsumer in(ring.view());
  uint32_t errors = 0;
  for (uint32_t expect = 0; expect < kMessages;) {
    const CellHeader* cell = in.Peek();
    if (cell == nullptr) {
      std::this_thread::yield();  // the host may have fewer free cores than threads
      continue;
    }
    uint32_t seq = 0;
    std::memcpy(&seq, cell->payload(), 4);
    errors += seq != expect || cell->length != 4 + expect % 500;
    errors += static_cast<uint8_t>(cell->payload()[cell->length - 1]) != (expect & 0xff) && cell->length > 4;
    in.Pop();
    ++expect;
  }
  producer.join();
  EXPECT_EQ(errors, 0u);
}

}  // namespace
}  // namespace gpurun::p2p::shm
