// Engines driven by one thread per rank over a FakeNetwork: every rank
// exchanges many messages (eager and rendezvous) with every other, with
// per-pair order checked, then drains wildcard receives; also with 8 ranks on
// this machine's few cores, which needs the waits to yield. Also one engine
// shared by two threads whose blocking receives wait at the same time, and
// the engine's lock on its own.
#include <gtest/gtest.h>

#include <thread>

#include "engine_test_util.h"
#include "fake_network.h"
#include "p2p/fast_mutex.h"

namespace gpurun::p2p::testing {
namespace {

struct Shape {
  int ranks;
  int messages;  // per ordered pair
};

class EngineThreadsTest : public ParamsFixture, public ::testing::WithParamInterface<Shape> {};
using ParamsFixtureTest = ParamsFixture;

// Message i from s to d holds s * 1'000'000 + i in every word; its length
// varies so that some go eagerly and some by rendezvous.
std::vector<int> Payload(int s, int i) { return std::vector<int>(1 + (i * 7) % 40, s * 1000000 + i); }

Status RunRank(Engine& e, int me, int n, int count) {
  std::vector<std::vector<int>> out;
  std::vector<Request*> sends;
  for (int i = 0; i < count; ++i) {
    for (int d = 0; d < n; ++d) {
      out.push_back(Payload(me, i));
      sends.push_back(Start(e, SendTo(me, d, 1, out.back().data(), out.back().size() * sizeof(int))));
    }
  }
  std::vector<int> in(64);
  for (int i = 0; i < count; ++i) {
    for (int s = 0; s < n; ++s) {
      grStatus_t st;
      GR_RETURN_IF_ERROR(e.Wait(Start(e, RecvFrom(s, 1, in.data(), in.size() * sizeof(int))), &st));
      const std::vector<int> want = Payload(s, i);
      if (st.bytes != want.size() * sizeof(int) || in[0] != want[0] || in[want.size() - 1] != want[0]) {
        return InternalError("rank " + std::to_string(me) + ": message " + std::to_string(i) + " from " +
                             std::to_string(s) + " wrong or out of order (got " + std::to_string(in[0]) + ")");
      }
    }
  }
  GR_RETURN_IF_ERROR(e.WaitAll(sends, nullptr));
  // Wildcards: everyone sends one tag-2 message to everyone; receive them with
  // GR_ANY_SOURCE and check each source came once.
  int mine = me;
  std::vector<Request*> tag2;
  for (int d = 0; d < n; ++d) tag2.push_back(Start(e, SendTo(me, d, 2, &mine, sizeof mine)));
  std::vector<int> seen(n, 0);
  for (int k = 0; k < n; ++k) {
    int from = -1;
    grStatus_t st;
    GR_RETURN_IF_ERROR(e.Wait(Start(e, RecvFrom(GR_ANY_SOURCE, GR_ANY_TAG, &from, sizeof from)), &st));
    if (st.source != from || st.tag != 2) return InternalError("wildcard status does not match the message");
    ++seen[from];
  }
  for (int s = 0; s < n; ++s) {
    if (seen[s] != 1) return InternalError("rank " + std::to_string(s) + " seen " + std::to_string(seen[s]) + " times");
  }
  return e.WaitAll(tag2, nullptr);
}

TEST_P(EngineThreadsTest, AllPairsInOrderThenWildcards) {
  const int n = GetParam().ranks, count = GetParam().messages;
  FakeNetwork net(n, {.eager_limit = 64});
  std::vector<std::unique_ptr<Engine>> engines;
  for (int r = 0; r < n; ++r) engines.push_back(net.MakeEngine(r));
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] { results[r] = RunRank(*engines[r], r, n, count); });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < n; ++r) EXPECT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r].ToString();
}

// Rank 0's engine is driven by two threads, each in blocking receives of its
// own tag, while rank 1 sends both tags alternately: both waits must move.
TEST_F(ParamsFixtureTest, TwoThreadsWaitOnOneEngine) {
  constexpr int kMessages = 2000;
  FakeNetwork net(2, {.eager_limit = 64});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  auto receive = [&](int tag, Status* result) {
    for (int i = 0; i < kMessages && result->ok(); ++i) {
      int v = -1;
      *result = r0->Recv(RecvFrom(1, tag, &v, sizeof v), nullptr);
      if (result->ok() && v != tag * kMessages + i)
        *result = InternalError("tag " + std::to_string(tag) + " got " + std::to_string(v));
    }
  };
  Status a, b, sent;
  std::thread ta(receive, 1, &a), tb(receive, 2, &b);
  std::thread sender([&] {
    for (int i = 0; i < kMessages && sent.ok(); ++i) {
      for (int tag = 1; tag <= 2 && sent.ok(); ++tag) {
        const int v = tag * kMessages + i;
        sent = r1->Send(SendTo(1, 0, tag, &v, sizeof v));
      }
    }
  });
  sender.join();
  ta.join();
  tb.join();
  EXPECT_TRUE(sent.ok()) << sent.ToString();
  EXPECT_TRUE(a.ok()) << a.ToString();
  EXPECT_TRUE(b.ok()) << b.ToString();
}

TEST(FastMutexTest, ExcludesAcrossThreads) {
  constexpr int kThreads = 4, kRounds = 100000;
  FastMutex mu;
  long counter = 0;  // deliberately not atomic: the mutex guards it
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kRounds; ++i) {
        std::lock_guard<FastMutex> lock(mu);
        ++counter;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(counter, long{kThreads} * kRounds);
  EXPECT_TRUE(mu.try_lock());
  EXPECT_FALSE(mu.try_lock());
  mu.unlock();
}

INSTANTIATE_TEST_SUITE_P(Shapes, EngineThreadsTest,
                         ::testing::Values(Shape{2, 500}, Shape{3, 200}, Shape{4, 100}, Shape{8, 50}),
                         [](const auto& info) {
                           return std::to_string(info.param.ranks) + "Ranks" + std::to_string(info.param.messages) +
                                  "Messages";
                         });

}  // namespace
}  // namespace gpurun::p2p::testing
