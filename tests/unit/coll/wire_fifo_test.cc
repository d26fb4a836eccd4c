// Two threads move 1 MiB (and 1 MiB + 13 bytes) through one FIFO in ordinary
// memory, the host way: a producer waits for credit (the consumer's head),
// fills a step and publishes it (LL / LL128 flags, Simple tail); the consumer
// polls, checks every line against the source as soon as its flag matches,
// then releases the step. Small FIFOs make thousands of wrap-arounds, so a
// flag seen before its data, or a slot reused too early, shows up as a bad
// line, a wrong result or a timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "coll/int_math.h"
#include "coll/wire_format.h"
#include "coll_test_util.h"

namespace gpurun::coll {
namespace {

// Spins until a condition holds, yielding now and then; gives up after 60 s
// or once the other thread has given up.
class Spinner {
 public:
  explicit Spinner(std::atomic<bool>* failed)
      : failed_(failed), deadline_(std::chrono::steady_clock::now() + std::chrono::seconds(60)) {}

  template <typename Ready>
  bool Until(Ready ready) {
    for (uint32_t i = 1; !ready(); ++i) {
      if (i % 256 != 0) continue;
      if (failed_->load(std::memory_order_relaxed) || std::chrono::steady_clock::now() > deadline_) {
        failed_->store(true);
        return false;
      }
      std::this_thread::yield();
    }
    return true;
  }

 private:
  std::atomic<bool>* failed_;
  std::chrono::steady_clock::time_point deadline_;
};

std::vector<uint8_t> RandomBytes(uint64_t n) {
  std::vector<uint8_t> bytes(n);
  testing::SplitMix rng(n);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
  return bytes;
}

// Puts up to one line of data into a line, or takes it out (false: not there yet).
struct LLWire {
  static constexpr Protocol kProto = Protocol::kLL;
  using Line = LLLine;
  static void Put(Line* line, const uint8_t* src, uint64_t n, uint64_t step) {
    uint64_t data = 0;
    std::memcpy(&data, src, n);
    line->write(data, LLFlag(step));
  }
  static bool Take(const Line& line, uint8_t* dst, uint64_t n, uint64_t step) {
    uint64_t data = 0;
    if (!line.read(LLFlag(step), &data)) return false;
    std::memcpy(dst, &data, n);
    return true;
  }
};

struct LL128Wire {
  static constexpr Protocol kProto = Protocol::kLL128;
  using Line = LL128Line;
  static void Put(Line* line, const uint8_t* src, uint64_t n, uint64_t step) {
    uint64_t data[kLL128DataWords] = {};
    std::memcpy(data, src, n);
    line->write(data, LL128Flag(step));
  }
  static bool Take(const Line& line, uint8_t* dst, uint64_t n, uint64_t step) {
    uint64_t data[kLL128DataWords];
    if (!line.read(LL128Flag(step), data)) return false;
    std::memcpy(dst, data, n);
    return true;
  }
};

template <typename Wire>
void TransferLines(uint64_t buffer_bytes, uint64_t nbytes) {
  using Line = typename Wire::Line;
  const uint64_t line_data = GeometryOf(Wire::kProto).line_data_bytes;
  const uint64_t step_data = StepDataBytes(Wire::kProto, buffer_bytes);
  const uint64_t nsteps = DivUp(nbytes, step_data);
  const std::vector<uint8_t> src = RandomBytes(nbytes);
  std::vector<uint8_t> dst(nbytes, 0);
  std::vector<Line> fifo(buffer_bytes / sizeof(Line));
  for (Line& line : fifo) line.clear();
  StepCounter head;
  head.clear();
  std::atomic<bool> failed{false};

  std::thread producer([&] {
    Spinner spin(&failed);
    for (uint64_t step = 0; step < nsteps; ++step) {
      if (!spin.Until([&] { return SlotFree(step, head.load()); })) return;
      Line* slot = fifo.data() + SlotOffset(step, buffer_bytes) / sizeof(Line);
      const uint64_t begin = step * step_data, n = Min(step_data, nbytes - begin);
      for (uint64_t i = 0; i * line_data < n; ++i) {
        Wire::Put(&slot[i], &src[begin + i * line_data], Min(line_data, n - i * line_data), step);
      }
    }
  });

  uint64_t bad_lines = 0;
  Spinner spin(&failed);
  for (uint64_t step = 0; step < nsteps && !failed.load(); ++step) {
    const Line* slot = fifo.data() + SlotOffset(step, buffer_bytes) / sizeof(Line);
    const uint64_t begin = step * step_data, n = Min(step_data, nbytes - begin);
    for (uint64_t i = 0; i * line_data < n; ++i) {
      const uint64_t at = begin + i * line_data, len = Min(line_data, n - i * line_data);
      if (!spin.Until([&] { return Wire::Take(slot[i], &dst[at], len, step); })) break;
      bad_lines += std::memcmp(&dst[at], &src[at], len) != 0;
    }
    head.post(step + 1);
  }
  producer.join();
  EXPECT_FALSE(failed.load()) << "timed out";
  EXPECT_EQ(bad_lines, 0u);
  EXPECT_TRUE(dst == src);
}

void TransferSimple(uint64_t buffer_bytes, uint64_t nbytes) {
  const uint64_t step_data = StepDataBytes(Protocol::kSimple, buffer_bytes);
  const uint64_t nsteps = DivUp(nbytes, step_data);
  const std::vector<uint8_t> src = RandomBytes(nbytes);
  std::vector<uint8_t> dst(nbytes, 0);
  std::vector<uint8_t> fifo(buffer_bytes, 0);
  StepCounter head, tail;
  head.clear();
  tail.clear();
  std::atomic<bool> failed{false};

  std::thread producer([&] {
    Spinner spin(&failed);
    for (uint64_t step = 0; step < nsteps; ++step) {
      if (!spin.Until([&] { return SlotFree(step, head.load()); })) return;
      const uint64_t begin = step * step_data;
      std::memcpy(&fifo[SlotOffset(step, buffer_bytes)], &src[begin], Min(step_data, nbytes - begin));
      tail.post(step + 1);  // bulk data, then the step counter with release
    }
  });

  uint64_t bad_steps = 0;
  Spinner spin(&failed);
  for (uint64_t step = 0; step < nsteps; ++step) {
    if (!spin.Until([&] { return tail.load() > step; })) break;
    const uint64_t begin = step * step_data, n = Min(step_data, nbytes - begin);
    std::memcpy(&dst[begin], &fifo[SlotOffset(step, buffer_bytes)], n);
    bad_steps += std::memcmp(&dst[begin], &src[begin], n) != 0;
    head.post(step + 1);
  }
  producer.join();
  EXPECT_FALSE(failed.load()) << "timed out";
  EXPECT_EQ(bad_steps, 0u);
  EXPECT_TRUE(dst == src);
}

constexpr uint64_t kMiB = 1 << 20;

TEST(WireFifoTest, LLDefaultFifo) {
  TransferLines<LLWire>(kLLDefaultBufferBytes, kMiB);  // 32 steps: four trips round the FIFO
  TransferLines<LLWire>(kLLDefaultBufferBytes, kMiB + 13);
}

TEST(WireFifoTest, LLSmallFifo) {
  TransferLines<LLWire>(8 * 16 * 32, kMiB);  // 256 data bytes per step: 4096 steps
  TransferLines<LLWire>(8 * 16 * 32, kMiB + 13);
}

TEST(WireFifoTest, LL128DefaultFifo) {
  TransferLines<LL128Wire>(kLL128DefaultBufferBytes, kMiB);
  TransferLines<LL128Wire>(kLL128DefaultBufferBytes, 4 * kMiB + 13);  // wraps the FIFO
}

TEST(WireFifoTest, LL128SmallFifo) {
  TransferLines<LL128Wire>(8 * 128 * 4, kMiB);  // 480 data bytes per step: 2185 steps
  TransferLines<LL128Wire>(8 * 128 * 4, kMiB + 13);
}

TEST(WireFifoTest, Simple) {
  TransferSimple(kSimpleDefaultBufferBytes, 8 * kMiB + 13);
  TransferSimple(8 * 512, kMiB + 13);  // 512 bytes per step: 2049 steps
}

}  // namespace
}  // namespace gpurun::coll
