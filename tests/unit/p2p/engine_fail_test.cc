// Engine failure paths over a FakeNetwork: cancellation at finalize, timeouts
// naming the peer, peer failure reported by a wire (OnPeerFailed) and peer
// death seen by the engine's own monitor (a forked child process).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "engine_test_util.h"
#include "fake_network.h"
#include "p2p/peer_monitor.h"

namespace gpurun::p2p::testing {
namespace {

using EngineFailTest = ParamsFixture;

TEST_F(EngineFailTest, CancelAllCompletesEveryPendingRequest) {
  FakeNetwork net(2, {.eager_limit = 4});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  int in = 0;
  std::vector<char> big(100, 'x');
  Request* recv = Start(*r0, RecvFrom(1, 1, &in, sizeof in));
  Request* send = Start(*r0, SendTo(0, 1, 1, big.data(), big.size()));  // rendezvous, never received
  int v = 3;
  Request* done = Start(*r0, SendTo(0, 0, 9, &v, sizeof v));  // to self: already complete
  EXPECT_EQ(r0->CancelAll(InvalidUsage("cancelled by grFinalize")), 2);
  grStatus_t st;
  const Status r = r0->Wait(recv, &st);
  EXPECT_EQ(r.code(), grInvalidUsage);
  EXPECT_EQ(r.message(), "recv from rank 1 (world 1) tag 1 on context 0: cancelled by grFinalize");
  EXPECT_EQ(st.error, grInvalidUsage);
  EXPECT_EQ(r0->Wait(send, nullptr).code(), grInvalidUsage);
  EXPECT_TRUE(r0->Wait(done, nullptr).ok());
  // Rank 1 holds an unmatched rendezvous message from rank 0: destroying both
  // engines releases it and the still-busy send without touching freed memory.
  bool found = false;
  ASSERT_TRUE(r1->Probe(0, 0, 1, true, &found, nullptr).ok());
  r1.reset();
  r0.reset();
}

TEST_F(EngineFailTest, TimeoutNamesWhatTheWaitWasFor) {
  SetTimeout("0.2");
  FakeNetwork net(2);
  auto r0 = net.MakeEngine(0);
  int in = 0;
  RecvArgs args = RecvFrom(1, 7, &in, sizeof in);
  args.what = "grRecv";
  Request* recv = Start(*r0, args);
  grStatus_t st;
  const auto start = std::chrono::steady_clock::now();
  const Status r = r0->Wait(recv, &st);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code(), grTimeout);
  EXPECT_EQ(r.message(), "grRecv from rank 1 (world 1) tag 7 on context 0 timed out after 0.2 s");
  EXPECT_EQ(st.error, grTimeout);
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 5.0);
  EXPECT_FALSE(r0->IsLive(recv)) << "a timed-out request is freed";
  bool found = true;
  const Status probe = r0->Probe(0, GR_ANY_SOURCE, 3, true, &found, nullptr, "grProbe");
  EXPECT_EQ(probe.code(), grTimeout);
  EXPECT_EQ(probe.message(), "grProbe from any rank tag 3 on context 0 timed out after 0.2 s");
  // WaitAll: one deadline; every request freed, the first error returned.
  std::vector<Request*> reqs = {Start(*r0, RecvFrom(1, 1, &in, sizeof in)), Start(*r0, RecvFrom(1, 2, &in, sizeof in))};
  const Status all = r0->WaitAll(reqs, nullptr);
  EXPECT_EQ(all.code(), grTimeout);
  EXPECT_NE(all.message().find("tag 1"), std::string::npos) << all.message();
  EXPECT_EQ(reqs[0], nullptr);
  EXPECT_EQ(reqs[1], nullptr);
}

TEST_F(EngineFailTest, PeerFailureFailsWhatDependsOnThePeerOnly) {
  FakeNetwork net(3, {.eager_limit = 8});
  auto r0 = net.MakeEngine(0);
  auto r1 = net.MakeEngine(1);
  auto r2 = net.MakeEngine(2);
  ASSERT_TRUE(r0->AddContext(2, {0, 2}).ok());  // a communicator without rank 1
  int early = 11, in_early = 0, a = 0, b = 0, c = 0, d = 0;
  ASSERT_TRUE(r1->Wait(Start(*r1, SendTo(1, 0, 9, &early, sizeof early)), nullptr).ok());
  Request* from1 = Start(*r0, RecvFrom(1, 1, &a, sizeof a));
  Request* any = Start(*r0, RecvFrom(GR_ANY_SOURCE, 1, &b, sizeof b));
  Request* from2 = Start(*r0, RecvFrom(2, 1, &c, sizeof c));
  RecvArgs any_without_1 = RecvFrom(GR_ANY_SOURCE, 1, &d, sizeof d, 2);
  Request* other_comm = Start(*r0, any_without_1);
  std::vector<char> big(64, 'b');
  Request* send_to1 = Start(*r0, SendTo(0, 1, 1, big.data(), big.size()));
  net.Kill(1, RemoteError("rank 1 (pid 4242 on nodeA) died"));
  const Status failed = r0->Wait(from1, nullptr);
  EXPECT_EQ(failed.code(), grRemoteError);
  EXPECT_EQ(failed.message(), "recv from rank 1 (world 1) tag 1 on context 0: rank 1 (pid 4242 on nodeA) died");
  EXPECT_EQ(r0->Wait(any, nullptr).code(), grRemoteError);
  EXPECT_EQ(r0->Wait(send_to1, nullptr).code(), grRemoteError);
  // What rank 1 sent before it died is still received.
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 9, &in_early, sizeof in_early)), nullptr).ok());
  EXPECT_EQ(in_early, 11);
  // New operations on rank 1 fail at once.
  EXPECT_EQ(r0->Wait(Start(*r0, RecvFrom(1, 5, &a, sizeof a)), nullptr).code(), grRemoteError);
  EXPECT_EQ(r0->Wait(Start(*r0, SendTo(0, 1, 5, &a, sizeof a)), nullptr).code(), grRemoteError);
  // Rank 2's traffic and a wildcard on a communicator without rank 1 go on.
  int v = 22;
  ASSERT_TRUE(r2->Wait(Start(*r2, SendTo(2, 0, 1, &v, sizeof v)), nullptr).ok());
  ASSERT_TRUE(r2->Wait(Start(*r2, SendTo(1, 0, 1, &v, sizeof v, 2)), nullptr).ok());
  EXPECT_TRUE(r0->Wait(from2, nullptr).ok());
  EXPECT_EQ(c, 22);
  EXPECT_TRUE(r0->Wait(other_comm, nullptr).ok());
}

// The engine's own monitor: rank 1 is a child process on this host that exits.
TEST_F(EngineFailTest, MonitorSeesASameHostPeerDie) {
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    char byte;
    close(pipefd[1]);
    (void)!read(pipefd[0], &byte, 1);  // until the parent closes its end
    _exit(3);
  }
  close(pipefd[0]);
  std::vector<PeerInfo> peers = {PeerInfo{0, 0, 2, 0, static_cast<int>(getpid()), "testhost"},
                                 PeerInfo{1, 1, 2, 0, static_cast<int>(child), "testhost"}};
  FakeNetwork net(2);
  std::vector<std::unique_ptr<Wire>> wires;
  wires.push_back(net.MakeWire(0));
  auto r0 = Engine::CreateForTest(0, std::move(wires), {-1, 0}, peers);
  ASSERT_TRUE(r0->AddContext(0, {0, 1}).ok());
  int in = 0;
  Request* recv = Start(*r0, RecvFrom(1, 1, &in, sizeof in));
  close(pipefd[1]);  // the child exits
  const auto start = std::chrono::steady_clock::now();
  const Status r = r0->Wait(recv, nullptr);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code(), grRemoteError);
  EXPECT_NE(r.message().find("rank 1 (pid " + std::to_string(child) + " on testhost) died"), std::string::npos)
      << r.message();
  EXPECT_LT(waited, 5.0);
  int status = 0;
  waitpid(child, &status, 0);
}

TEST(PeerMonitorTest, WatchesOnlyOtherProcessesOnThisHost) {
  std::vector<PeerInfo> peers = {PeerInfo{0, 0, 1, 0, static_cast<int>(getpid()), "h"},
                                 PeerInfo{1, 0, 1, 1, 1, "other-host"},
                                 PeerInfo{2, 0, 1, 0, static_cast<int>(getpid()), "h"}};
  auto monitor = PeerMonitor::Create(0, peers, 0.0);
  EXPECT_EQ(monitor->watched(), 0u);
  EXPECT_TRUE(monitor->Poll().empty());
}

}  // namespace
}  // namespace gpurun::p2p::testing
