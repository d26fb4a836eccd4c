// Engine matching over a FakeNetwork driven by one thread: order, wildcards,
// truncation, zero-byte messages, the rendezvous (PendingPayload) path,
// probes, contexts, and the completion calls.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <numeric>

#include "engine_test_util.h"
#include "fake_network.h"

namespace gpurun::p2p::testing {
namespace {

using EngineMatchTest = ParamsFixture;

TEST_F(EngineMatchTest, SelfMessagesLoopBackEitherOrder) {
  FakeNetwork net(1);
  auto e = net.MakeEngine(0);
  EXPECT_STREQ(e->WireFor(0), "self");
  int out = 41, in = 0;
  ASSERT_TRUE(e->Wait(Start(*e, SendTo(0, 0, 3, &out, sizeof out)), nullptr).ok());
  grStatus_t st;
  ASSERT_TRUE(e->Wait(Start(*e, RecvFrom(0, 3, &in, sizeof in)), &st).ok());
  EXPECT_EQ(in, 41);
  Request* posted = Start(*e, RecvFrom(0, 4, &in, sizeof in));
  out = 42;
  ASSERT_TRUE(e->Wait(Start(*e, SendTo(0, 0, 4, &out, sizeof out)), nullptr).ok());
  ASSERT_TRUE(e->Wait(posted, &st).ok());
  EXPECT_EQ(in, 42);
  EXPECT_EQ(st.source, 0);
  EXPECT_EQ(st.tag, 4);
  EXPECT_EQ(st.bytes, sizeof in);
}

// Same (source, tag): arrival order, eager and rendezvous sizes mixed.
TEST_F(EngineMatchTest, SameSourceAndTagArriveInOrder) {
  FakeNetwork net(2, {.eager_limit = 16});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  constexpr int kCount = 200;
  std::vector<std::vector<int>> bufs(kCount);
  std::vector<Request*> sends;
  for (int i = 0; i < kCount; ++i) {
    bufs[i].assign(i % 3 == 0 ? 64 : 2, i);  // 256 bytes (rendezvous) or 8 (eager)
    sends.push_back(Start(*r1, SendTo(1, 0, 5, bufs[i].data(), bufs[i].size() * sizeof(int))));
  }
  for (int i = 0; i < kCount; ++i) {
    std::vector<int> in(64, -1);
    grStatus_t st;
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 5, in.data(), in.size() * sizeof(int))), &st).ok());
    ASSERT_EQ(in[0], i) << "message " << i << " overtaken";
    EXPECT_EQ(st.bytes, bufs[i].size() * sizeof(int));
  }
  ASSERT_TRUE(r1->WaitAll(sends, nullptr).ok());
}

TEST_F(EngineMatchTest, DifferentTagsCanBeReceivedOutOfOrder) {
  FakeNetwork net(2);
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  int a = 1, b = 2, in = 0;
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 10, &a, sizeof a)), nullptr).ok());
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 20, &b, sizeof b)), nullptr).ok());
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 20, &in, sizeof in)), nullptr).ok());
  EXPECT_EQ(in, 2);
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 10, &in, sizeof in)), nullptr).ok());
  EXPECT_EQ(in, 1);
}

TEST_F(EngineMatchTest, WildcardsMatchInArrivalOrderAndReportTheEnvelope) {
  FakeNetwork net(3);
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  auto r2 = net.MakeEngine(2);
  int v2 = 200, v1 = 100, in = 0;
  ASSERT_TRUE(r2->Wait(Start(*r2, SendTo(2, 0, 7, &v2, sizeof v2)), nullptr).ok());
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 8, &v1, sizeof v1)), nullptr).ok());
  // Rank 0 polls its mailbox in one pass: rank 2's message arrived first.
  grStatus_t st;
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(GR_ANY_SOURCE, GR_ANY_TAG, &in, sizeof in)), &st).ok());
  EXPECT_EQ(in, 200);
  EXPECT_EQ(st.source, 2);
  EXPECT_EQ(st.tag, 7);
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, GR_ANY_TAG, &in, sizeof in)), &st).ok());
  EXPECT_EQ(in, 100);
  EXPECT_EQ(st.tag, 8);
  // A posted wildcard receive takes the next arrival.
  Request* any = Start(*r0, RecvFrom(GR_ANY_SOURCE, 9, &in, sizeof in));
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 9, &v1, sizeof v1)), nullptr).ok());
  ASSERT_TRUE(r0->Wait(any, &st).ok());
  EXPECT_EQ(st.source, 1);
  EXPECT_EQ(st.tag, 9);
}

// Truncation: receive capacity 8 inside a guarded buffer; eager and rendezvous,
// posted before and after the arrival.
class TruncationTest : public ParamsFixture, public ::testing::WithParamInterface<std::tuple<bool, bool>> {};

TEST_P(TruncationTest, NeverWritesPastTheBufferAndReportsTruncated) {
  const auto [rendezvous, post_first] = GetParam();
  FakeNetwork net(2, {.eager_limit = rendezvous ? 4u : 1024u});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  std::array<unsigned char, 12> message;
  std::iota(message.begin(), message.end(), 1);
  std::array<unsigned char, 24> guarded;
  guarded.fill(0xEE);
  unsigned char* buf = guarded.data() + 8;  // capacity 8, guards on both sides
  Request* recv = post_first ? Start(*r0, RecvFrom(1, 1, buf, 8)) : nullptr;
  Request* send = Start(*r1, SendTo(1, 0, 1, message.data(), message.size()));
  if (!post_first) {
    bool found = false;
    ASSERT_TRUE(r0->Probe(0, 1, 1, true, &found, nullptr).ok());
    ASSERT_TRUE(found);
    recv = Start(*r0, RecvFrom(1, 1, buf, 8));
  }
  grStatus_t st;
  const Status result = r0->Wait(recv, &st);
  EXPECT_EQ(result.code(), grTruncated) << result.ToString();
  EXPECT_NE(result.message().find("12 bytes"), std::string::npos) << result.message();
  EXPECT_EQ(st.error, grTruncated);
  EXPECT_EQ(st.bytes, 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(guarded[i], 0xEE) << "guard byte " << i;
  for (int i = 0; i < 8; ++i) EXPECT_EQ(buf[i], message[i]);
  for (int i = 16; i < 24; ++i) EXPECT_EQ(guarded[i], 0xEE) << "guard byte " << i;
  EXPECT_TRUE(r1->Wait(send, nullptr).ok());
}

INSTANTIATE_TEST_SUITE_P(Paths, TruncationTest, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "Rendezvous" : "Eager") +
                                  (std::get<1>(info.param) ? "PostedFirst" : "ArrivedFirst");
                         });

TEST_F(EngineMatchTest, ZeroByteMessages) {
  FakeNetwork net(2, {.eager_limit = 0});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 0, nullptr, 0)), nullptr).ok());
  grStatus_t st;
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 0, nullptr, 0)), &st).ok());
  EXPECT_EQ(st.bytes, 0u);
  EXPECT_EQ(st.count, 0u);
  EXPECT_EQ(st.source, 1);
  // A zero-byte message into a non-empty buffer writes nothing.
  int untouched = 7;
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 0, nullptr, 0)), nullptr).ok());
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 0, &untouched, sizeof untouched)), &st).ok());
  EXPECT_EQ(untouched, 7);
}

// The rendezvous path: the payload waits in the unexpected queue; the send
// completes only once the receive fetched it; async fetch completions too.
class PendingTest : public ParamsFixture, public ::testing::WithParamInterface<bool> {};

TEST_P(PendingTest, PayloadIsFetchedWhenAReceiveMatches) {
  FakeNetwork net(2, {.eager_limit = 8, .async_fetch = GetParam()});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  std::vector<double> out(1000);
  std::iota(out.begin(), out.end(), 0.5);
  Request* send = Start(*r1, SendTo(1, 0, 2, out.data(), out.size() * sizeof(double)));
  bool done = true;
  ASSERT_TRUE(r1->Test(send, &done, nullptr).ok());
  EXPECT_FALSE(done) << "a rendezvous send completed before any receive";
  grStatus_t st;
  bool found = false;
  ASSERT_TRUE(r0->Probe(0, 1, 2, true, &found, &st).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(st.bytes, out.size() * sizeof(double));
  std::vector<double> in(1000);
  RecvArgs args = RecvFrom(1, 2, in.data(), in.size() * sizeof(double));
  args.type_size = sizeof(double);
  Request* recv = Start(*r0, args);
  ASSERT_TRUE(r0->Wait(recv, &st).ok());
  EXPECT_EQ(in, out);
  EXPECT_EQ(st.count, 1000u);
  ASSERT_TRUE(r1->Wait(send, nullptr).ok());
}

INSTANTIATE_TEST_SUITE_P(Fetch, PendingTest, ::testing::Bool(),
                         [](const auto& info) { return std::string(info.param ? "Async" : "Sync"); });

TEST_F(EngineMatchTest, IprobeSeesOnlyArrivedMatchingMessagesAndLeavesThem) {
  FakeNetwork net(2);
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  bool found = true;
  grStatus_t st{};
  ASSERT_TRUE(r0->Probe(0, GR_ANY_SOURCE, GR_ANY_TAG, false, &found, &st).ok());
  EXPECT_FALSE(found);
  const char text[] = "hello";
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 6, text, sizeof text)), nullptr).ok());
  ASSERT_TRUE(r0->Probe(0, 1, 5, false, &found, &st).ok());
  EXPECT_FALSE(found) << "tag 5 matched a tag-6 message";
  ASSERT_TRUE(r0->Probe(0, GR_ANY_SOURCE, 6, false, &found, &st).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(st.source, 1);
  EXPECT_EQ(st.tag, 6);
  EXPECT_EQ(st.bytes, sizeof text);
  EXPECT_EQ(st.count, sizeof text);
  ASSERT_TRUE(r0->Probe(0, 1, 6, true, &found, &st).ok());  // still there
  char in[sizeof text] = {};
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 6, in, sizeof in)), nullptr).ok());
  EXPECT_STREQ(in, "hello");
  ASSERT_TRUE(r0->Probe(0, 1, 6, false, &found, &st).ok());
  EXPECT_FALSE(found);
}

TEST_F(EngineMatchTest, ContextsSeparateMessagesAndEarlyArrivalsWaitForTheirContext) {
  FakeNetwork net(2);
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  ASSERT_TRUE(r1->AddContext(4, {0, 1}).ok());
  int on4 = 4, on0 = 0, in = -1;
  // Rank 1 sends on context 4 before rank 0 declared it.
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 1, &on4, sizeof on4, 4)), nullptr).ok());
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 1, &on0, sizeof on0, 0)), nullptr).ok());
  EXPECT_EQ(r0->Irecv(RecvFrom(1, 1, &in, sizeof in, 4)).status().code(), grInvalidArgument);
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 1, &in, sizeof in, 0)), nullptr).ok());
  EXPECT_EQ(in, 0) << "context 0 received context 4's message";
  ASSERT_TRUE(r0->AddContext(4, {0, 1}).ok());
  EXPECT_EQ(r0->AddContext(4, {0, 1}).code(), grInvalidUsage);
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 1, &in, sizeof in, 4)), nullptr).ok());
  EXPECT_EQ(in, 4);
  // A context with outstanding requests cannot be removed.
  Request* pending = Start(*r0, RecvFrom(1, 2, &in, sizeof in, 4));
  EXPECT_EQ(r0->RemoveContext(4).code(), grInvalidUsage);
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 2, &on4, sizeof on4, 4)), nullptr).ok());
  ASSERT_TRUE(r0->Wait(pending, nullptr).ok());
  EXPECT_TRUE(r0->RemoveContext(4).ok());
  EXPECT_EQ(r0->RemoveContext(4).code(), grInvalidArgument);
}

TEST_F(EngineMatchTest, TestWaitAnyWaitAllAndStaleRequests) {
  FakeNetwork net(2);
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  int a = 0, b = 0, v = 5;
  std::vector<Request*> reqs = {nullptr, Start(*r0, RecvFrom(1, 1, &a, sizeof a)),
                                Start(*r0, RecvFrom(1, 2, &b, sizeof b))};
  bool done = true;
  ASSERT_TRUE(r0->Test(reqs[1], &done, nullptr).ok());
  EXPECT_FALSE(done);
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 2, &v, sizeof v)), nullptr).ok());
  int index = -2;
  grStatus_t st;
  ASSERT_TRUE(r0->WaitAny(reqs, &index, &st).ok());
  EXPECT_EQ(index, 2);
  EXPECT_EQ(reqs[2], nullptr);
  EXPECT_EQ(st.tag, 2);
  Request* stale = Start(*r0, RecvFrom(1, 3, &b, sizeof b));
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 3, &v, sizeof v)), nullptr).ok());
  ASSERT_TRUE(r0->Wait(stale, nullptr).ok());
  EXPECT_FALSE(r0->IsLive(stale));
  EXPECT_EQ(r0->Wait(stale, nullptr).code(), grInvalidArgument);
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 1, &v, sizeof v)), nullptr).ok());
  std::vector<grStatus_t> sts(3);
  ASSERT_TRUE(r0->WaitAll(reqs, sts.data()).ok());
  EXPECT_EQ(sts[0].source, GR_ANY_SOURCE);
  EXPECT_EQ(sts[1].tag, 1);
  EXPECT_EQ(reqs[1], nullptr);
  std::vector<Request*> none = {nullptr, nullptr};
  ASSERT_TRUE(r0->WaitAny(none, &index, &st).ok());
  EXPECT_EQ(index, -1);
}

}  // namespace
}  // namespace gpurun::p2p::testing
