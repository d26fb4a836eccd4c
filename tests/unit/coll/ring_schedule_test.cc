// Ring schedules, checked by simulating every transfer: what each position
// sends is what its next expects, nothing is reduced twice, and at the end
// every rank holds what the collective promises, after exactly the number of
// transfers step_counts.h states.
#include "coll/patterns/ring_schedule.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "coll/patterns/step_counts.h"
#include "coll_test_util.h"

namespace gpurun::coll {
namespace {

// Which ranks' contributions a piece of data holds (each at most once).
using Contrib = std::vector<uint8_t>;

bool Complete(const Contrib& c) {
  for (uint8_t x : c) {
    if (x != 1) return false;
  }
  return true;
}

// Adds `in` into `acc`; false if some contribution would be counted twice.
bool Reduce(Contrib* acc, const Contrib& in) {
  for (size_t i = 0; i < in.size(); ++i) {
    acc->at(i) += in[i];
    if (acc->at(i) > 1) return false;
  }
  return true;
}

std::vector<int> SimulatedRankCounts() {
  std::vector<int> counts;
  for (int n : testing::RankCounts()) {
    if (n <= 129) counts.push_back(n);
  }
  return counts;
}

// state[pos][piece]: initially position pos contributes to every piece.
std::vector<std::vector<Contrib>> InitialState(int n) {
  std::vector<std::vector<Contrib>> state(n, std::vector<Contrib>(n, Contrib(n, 0)));
  for (int pos = 0; pos < n; ++pos) {
    for (int piece = 0; piece < n; ++piece) state[pos][piece][pos] = 1;
  }
  return state;
}

TEST(RingScheduleTest, AllReduceEndsFullyReducedEverywhere) {
  for (int n : SimulatedRankCounts()) {
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    auto state = InitialState(n);
    const int transfers = AlgorithmSteps(Pattern::kRingTwice, n);
    ASSERT_EQ(transfers, 2 * (n - 1));
    for (int t = 0; t < transfers; ++t) {
      std::vector<Contrib> sent(n);
      for (int pos = 0; pos < n; ++pos) {
        const int chunk = RingAllReduceSendChunk(pos, n, t);
        // Pipelined: a rank forwards what it received at the previous transfer.
        if (t > 0) {
          ASSERT_EQ(chunk, RingAllReduceRecvChunk(pos, n, t - 1));
        }
        sent[pos] = state[pos][chunk];
      }
      for (int pos = 0; pos < n; ++pos) {
        const int from = PosMod(pos - 1, n);
        const int chunk = RingAllReduceRecvChunk(pos, n, t);
        ASSERT_EQ(chunk, RingAllReduceSendChunk(from, n, t));
        if (RingAllReduceRecvReduces(n, t)) {
          ASSERT_TRUE(Reduce(&state[pos][chunk], sent[from])) << "double reduction, t=" << t;
        } else {
          ASSERT_TRUE(Complete(sent[from])) << "forwarded a partial chunk, t=" << t;
          state[pos][chunk] = sent[from];
        }
      }
      // After the reduce-scatter half, position i owns chunk i.
      if (t == n - 2) {
        for (int pos = 0; pos < n; ++pos) EXPECT_TRUE(Complete(state[pos][pos]));
      }
    }
    for (int pos = 0; pos < n; ++pos) {
      for (int chunk = 0; chunk < n; ++chunk) EXPECT_TRUE(Complete(state[pos][chunk]));
    }
  }
}

TEST(RingScheduleTest, AllGatherDeliversEveryBlockOnce) {
  for (int n : SimulatedRankCounts()) {
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    // has[pos][block]: times position pos received (or owned) block.
    std::vector<std::vector<int>> has(n, std::vector<int>(n, 0));
    for (int pos = 0; pos < n; ++pos) has[pos][pos] = 1;
    const int transfers = AlgorithmSteps(Func::kAllGather, Algo::kRing, n);
    ASSERT_EQ(transfers, n - 1);
    for (int t = 0; t < transfers; ++t) {
      for (int pos = 0; pos < n; ++pos) {
        const int block = RingAllGatherSendBlock(pos, n, t);
        ASSERT_EQ(has[pos][block], 1) << "sends a block it does not have";
        if (t > 0) {
          ASSERT_EQ(block, RingAllGatherRecvBlock(pos, n, t - 1));
        }
      }
      for (int pos = 0; pos < n; ++pos) {
        const int block = RingAllGatherRecvBlock(pos, n, t);
        ASSERT_EQ(block, RingAllGatherSendBlock(PosMod(pos - 1, n), n, t));
        ++has[pos][block];
      }
    }
    for (int pos = 0; pos < n; ++pos) {
      for (int block = 0; block < n; ++block) EXPECT_EQ(has[pos][block], 1);
    }
  }
}

TEST(RingScheduleTest, ReduceScatterLeavesEachRankItsBlockReduced) {
  for (int n : SimulatedRankCounts()) {
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    auto state = InitialState(n);
    const int transfers = AlgorithmSteps(Func::kReduceScatter, Algo::kRing, n);
    ASSERT_EQ(transfers, n - 1);
    for (int t = 0; t < transfers; ++t) {
      std::vector<Contrib> sent(n);
      for (int pos = 0; pos < n; ++pos) sent[pos] = state[pos][RingReduceScatterSendBlock(pos, n, t)];
      for (int pos = 0; pos < n; ++pos) {
        const int block = RingReduceScatterRecvBlock(pos, n, t);
        ASSERT_EQ(block, RingReduceScatterSendBlock(PosMod(pos - 1, n), n, t));
        ASSERT_TRUE(Reduce(&state[pos][block], sent[PosMod(pos - 1, n)]));
      }
    }
    for (int pos = 0; pos < n; ++pos) EXPECT_TRUE(Complete(state[pos][pos]));
  }
}

TEST(RingScheduleTest, ChainsRunFromAndIntoTheRoot) {
  for (int n : testing::RankCounts()) {
    for (int root : {0, n / 2, n - 1}) {
      SCOPED_TRACE(::testing::Message() << "n=" << n << " root=" << root);
      int heads = 0, tails = 0;
      for (int pos = 0; pos < n; ++pos) {
        const int bpos = BroadcastChainPos(pos, root, n);
        const int rpos = ReduceChainPos(pos, root, n);
        const ChainRole brole = ChainRoleAt(bpos, n);
        const ChainRole rrole = ChainRoleAt(rpos, n);
        if (n == 1) {
          EXPECT_EQ(brole, ChainRole::kAlone);
          continue;
        }
        heads += brole == ChainRole::kHead;
        tails += brole == ChainRole::kTail;
        EXPECT_EQ(brole == ChainRole::kHead, pos == root);                 // the root only sends
        EXPECT_EQ(brole == ChainRole::kTail, PosMod(pos + 1, n) == root);  // its prev only receives
        EXPECT_EQ(rrole == ChainRole::kTail, pos == root);                 // reduce ends at the root
        EXPECT_EQ(rrole == ChainRole::kHead, PosMod(pos - 1, n) == root);  // and starts after it
        // Data reaches chain position p after p hops: the next is one further.
        if (brole != ChainRole::kTail) {
          EXPECT_EQ(BroadcastChainPos(PosMod(pos + 1, n), root, n), bpos + 1);
        }
        if (rrole != ChainRole::kTail) {
          EXPECT_EQ(ReduceChainPos(PosMod(pos + 1, n), root, n), rpos + 1);
        }
      }
      if (n > 1) {
        EXPECT_EQ(heads, 1);
        EXPECT_EQ(tails, 1);
      }
      // The last link is n-1 hops from the first.
      EXPECT_EQ(AlgorithmSteps(Func::kBroadcast, Algo::kRing, n), n - 1);
      EXPECT_EQ(AlgorithmSteps(Func::kReduce, Algo::kRing, n), n - 1);
    }
  }
}

}  // namespace
}  // namespace gpurun::coll
