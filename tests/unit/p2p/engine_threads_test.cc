// Engines driven by one thread per rank over a FakeNetwork: every rank
// exchanges many messages (eager and rendezvous) with every other, with
// per-pair order checked, then drains wildcard receives; also with 8 ranks on
// this machine's few cores, which needs the waits to yield.
#include <gtest/gtest.h>

#include <thread>

#include "engine_test_util.h"
#include "fake_network.h"

namespace gpurun::p2p::testing {
namespace {

struct Shape {
  int ranks;
  int messages;  // per ordered pair
};

class EngineThreadsTest : public ParamsFixture, public ::testing::WithParamInterface<Shape> {};

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

INSTANTIATE_TEST_SUITE_P(Shapes, EngineThreadsTest,
                         ::testing::Values(Shape{2, 500}, Shape{3, 200}, Shape{4, 100}, Shape{8, 50}),
                         [](const auto& info) {
                           return std::to_string(info.param.ranks) + "Ranks" + std::to_string(info.param.messages) +
                                  "Messages";
                         });

}  // namespace
}  // namespace gpurun::p2p::testing
