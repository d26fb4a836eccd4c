// The share slot's words (p2p/shm/shm_share.h): every chunk taken exactly
// once, also by two threads racing; an old generation takes nothing; Close
// reports what was taken; the sender's count and failure flag.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "p2p/shm/shm_share.h"

namespace gpurun::p2p::shm {
namespace {

TEST(ShareSlotTest, ZeroMemoryIsClosed) {
  ShareSlot slot{};
  EXPECT_FALSE(ClaimChunk(slot, 1, 4).has_value());
  EXPECT_FALSE(ClaimChunk(slot, 0, 4).has_value()) << "generation 0 is never opened, so zero memory takes nothing";
}

TEST(ShareSlotTest, TakesEveryChunkOnceThenNothing) {
  ShareSlot slot{};
  OpenShare(slot, 7);
  for (uint32_t c = 0; c < 5; ++c) EXPECT_EQ(ClaimChunk(slot, 7, 5), c);
  EXPECT_FALSE(ClaimChunk(slot, 7, 5).has_value());
  EXPECT_EQ(CloseShare(slot, 7, 5), 5u);
}

TEST(ShareSlotTest, OldGenerationTakesNothingAfterReopen) {
  ShareSlot slot{};
  OpenShare(slot, 1);
  EXPECT_EQ(ClaimChunk(slot, 1, 3), 0u);
  ChunkWritten(slot);
  OpenShare(slot, 2);
  EXPECT_FALSE(ClaimChunk(slot, 1, 3).has_value()) << "an offer of generation 1 arriving late";
  EXPECT_EQ(ReadHelper(slot).written, 0u) << "the count starts over";
  EXPECT_EQ(ClaimChunk(slot, 2, 3), 0u);
}

TEST(ShareSlotTest, HalvesOfTheRestThenSingles) {
  ShareSlot slot{};
  OpenShare(slot, 9);
  const std::pair<uint32_t, uint32_t> expected[] = {{0, 5}, {5, 3}, {8, 1}, {9, 1}};  // 10 chunks: 5, 3, 1, 1
  for (const auto& [first, count] : expected) {
    const std::optional<ChunkRun> run = ClaimChunks(slot, 9, 10, /*half_of_rest=*/true);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->first, first);
    EXPECT_EQ(run->count, count);
  }
  EXPECT_FALSE(ClaimChunks(slot, 9, 10, true).has_value());
}

TEST(ShareSlotTest, CloseTakesTheRestAndReportsWhatWasTaken) {
  ShareSlot slot{};
  OpenShare(slot, 3);
  EXPECT_EQ(ClaimChunk(slot, 3, 10), 0u);
  EXPECT_EQ(ClaimChunk(slot, 3, 10), 1u);
  EXPECT_EQ(CloseShare(slot, 3, 10), 2u);
  EXPECT_FALSE(ClaimChunk(slot, 3, 10).has_value());
  EXPECT_EQ(CloseShare(slot, 3, 10), 10u) << "closing twice: all taken";
}

TEST(ShareSlotTest, HelperQuietOnceEveryTakenChunkIsWrittenOrItFailed) {
  ShareSlot slot{};
  OpenShare(slot, 5);
  EXPECT_TRUE(HelperQuiet(ReadHelper(slot), 0));
  ChunkWritten(slot);
  EXPECT_FALSE(HelperQuiet(ReadHelper(slot), 2));
  ChunkWritten(slot);
  EXPECT_TRUE(HelperQuiet(ReadHelper(slot), 2));
  HelperFailed(slot);
  const HelperProgress p = ReadHelper(slot);
  EXPECT_TRUE(p.failed);
  EXPECT_EQ(p.written, 2u) << "the flag does not disturb the count";
  EXPECT_TRUE(HelperQuiet(p, 3)) << "a failed sender touches nothing more";
}

// Two threads take chunks as fast as they can (one halves of the rest, the
// other single chunks), over many generations of one
// slot; each chunk must go to exactly one of them, and a thread still holding
// an old generation must take nothing of the new one.
TEST(ShareSlotTest, TwoThreadsRacingTakeEachChunkExactlyOnce) {
  constexpr uint32_t kChunks = 257;
  constexpr int kRounds = 300;
  ShareSlot slot{};
  std::atomic<uint32_t> round_generation{0};
  std::atomic<int> helper_round{0};
  std::vector<std::atomic<int>> owner(kChunks);
  std::atomic<bool> stop{false};
  std::atomic<int> stale_takes{0};
  std::thread helper([&] {
    int seen = 0;
    while (!stop.load()) {
      const int r = helper_round.load(std::memory_order_acquire);
      if (r == seen) continue;
      seen = r;
      const uint32_t gen = round_generation.load(std::memory_order_acquire);
      while (const std::optional<uint32_t> c = ClaimChunk(slot, gen, kChunks)) {
        if (round_generation.load() != gen) stale_takes.fetch_add(1);
        owner[*c].fetch_add(2);
        ChunkWritten(slot);
      }
    }
  });
  for (int r = 1; r <= kRounds; ++r) {
    for (auto& o : owner) o.store(0);
    const auto gen = static_cast<uint32_t>(r);
    OpenShare(slot, gen);
    round_generation.store(gen, std::memory_order_release);
    helper_round.store(r, std::memory_order_release);
    uint32_t own = 0;
    while (const std::optional<ChunkRun> run = ClaimChunks(slot, gen, kChunks, /*half_of_rest=*/true)) {
      for (uint32_t c = run->first; c < run->first + run->count; ++c) owner[c].fetch_add(1);
      own += run->count;
    }
    const uint32_t taken = CloseShare(slot, gen, kChunks);
    ASSERT_EQ(taken, kChunks);
    while (!HelperQuiet(ReadHelper(slot), taken - own)) std::this_thread::yield();
    for (uint32_t c = 0; c < kChunks; ++c) {
      const int o = owner[c].load();
      ASSERT_TRUE(o == 1 || o == 2) << "round " << r << " chunk " << c << " owner mark " << o;
    }
  }
  stop.store(true);
  helper.join();
  EXPECT_EQ(stale_takes.load(), 0);
}

}  // namespace
}  // namespace gpurun::p2p::shm
