// The batch region's slot-reuse rule (coll/device/oneshot_launch.h: with up
// to K calls a launch, P >= 2K parities), checked by simulation: ranks cut
// the same sequence of one-shot calls into launches of 1..K calls at random
// (each rank its own cuts), a rank runs its launches one after another, the
// calls of a launch in any interleaving, and each call first pushes its
// input into its slot of every peer (parity = call % P) and then waits for
// every peer's input. A push into a slot whose previous call (c - P) the
// receiver has not finished reading is a violation. Random schedules over
// many seeds find none with the region's parities, and find one with
// 2K - 1, so the simulation can tell.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "coll/device/oneshot_launch.h"

namespace gpurun::coll {
namespace {

struct Outcome {
  bool violated = false;
  bool deadlocked = false;
};

// One random schedule of `ncalls` calls on `nranks` ranks.
Outcome Simulate(int nranks, int ncalls, int max_batch, int parities, uint32_t seed) {
  std::mt19937 rng(seed);
  // Each rank's launches: [begin, end) of call numbers; sizes of 1..K,
  // half of them full, so cuts of K calls meet often.
  std::vector<std::vector<std::pair<int, int>>> launches(static_cast<size_t>(nranks));
  for (auto& l : launches) {
    for (int begin = 0; begin < ncalls;) {
      const int size = (rng() % 2 == 0) ? max_batch : 1 + static_cast<int>(rng() % static_cast<uint32_t>(max_batch));
      const int end = std::min(ncalls, begin + size);
      l.emplace_back(begin, end);
      begin = end;
    }
  }
  // pushed[r][c]: rank r pushed call c; done[r][c]: rank r finished reading c.
  std::vector<std::vector<char>> pushed(static_cast<size_t>(nranks), std::vector<char>(static_cast<size_t>(ncalls)));
  std::vector<std::vector<char>> done = pushed;
  std::vector<size_t> current(static_cast<size_t>(nranks), 0);
  Outcome out;
  for (;;) {
    // Every action that can happen now: (rank, call).
    std::vector<std::pair<int, int>> can;
    bool all_finished = true;
    for (int r = 0; r < nranks; ++r) {
      const auto& mine = launches[static_cast<size_t>(r)];
      if (current[static_cast<size_t>(r)] == mine.size()) continue;
      all_finished = false;
      const auto [begin, end] = mine[current[static_cast<size_t>(r)]];
      for (int c = begin; c < end; ++c) {
        if (!pushed[static_cast<size_t>(r)][static_cast<size_t>(c)]) {
          can.emplace_back(r, c);
          continue;
        }
        if (done[static_cast<size_t>(r)][static_cast<size_t>(c)]) continue;
        bool inputs = true;
        for (int q = 0; q < nranks; ++q) inputs = inputs && pushed[static_cast<size_t>(q)][static_cast<size_t>(c)];
        if (inputs) can.emplace_back(r, c);
      }
    }
    if (all_finished) return out;
    if (can.empty()) {
      out.deadlocked = true;
      return out;
    }
    const auto [r, c] = can[rng() % can.size()];
    const auto rs = static_cast<size_t>(r), cs = static_cast<size_t>(c);
    if (!pushed[rs][cs]) {
      // Into every peer's slot of parity c % P, last held by call c - P.
      for (int q = 0; q < nranks; ++q) {
        if (q != r && c >= parities && !done[static_cast<size_t>(q)][cs - static_cast<size_t>(parities)]) {
          out.violated = true;
        }
      }
      pushed[rs][cs] = 1;
    } else {
      done[rs][cs] = 1;
    }
    // The launch ends when all its calls are done; the next one starts.
    const auto [begin, end] = launches[rs][current[rs]];
    bool launch_done = true;
    for (int k = begin; k < end; ++k) launch_done = launch_done && done[rs][static_cast<size_t>(k)];
    if (launch_done) ++current[rs];
  }
}

// Whether any of `seeds` schedules violates the rule (none may deadlock).
bool AnyViolation(int nranks, int max_batch, int parities, int seeds) {
  for (int s = 0; s < seeds; ++s) {
    const Outcome o = Simulate(nranks, 160, max_batch, parities, static_cast<uint32_t>(s));
    EXPECT_FALSE(o.deadlocked) << "seed " << s;
    if (o.violated) return true;
  }
  return false;
}

TEST(OneShotReuse, TheBatchRegionsParitiesAllowAnyCuts) {
  for (int nranks : {2, 3, 8}) {
    SCOPED_TRACE(nranks);
    EXPECT_FALSE(AnyViolation(nranks, kOneShotBatchCalls, static_cast<int>(kOneShotBatchParities), 300));
  }
}

TEST(OneShotReuse, TheLargeRegionsTwoParitiesHoldForOneCallALaunch) {
  EXPECT_FALSE(AnyViolation(2, 1, 2, 300));
  EXPECT_FALSE(AnyViolation(4, 1, 2, 300));
}

TEST(OneShotReuse, OneParityFewerIsCaught) {
  EXPECT_TRUE(AnyViolation(2, kOneShotBatchCalls, 2 * kOneShotBatchCalls - 1, 2000));
  EXPECT_TRUE(AnyViolation(2, 1, 1, 2000)) << "one call a launch needs 2 parities";
}

}  // namespace
}  // namespace gpurun::coll
