// UcxWire between two real processes (fork + PipeBootstrap): data crosses,
// and a peer that dies without shutting down is reported through
// OnPeerFailed and fails the operations that involve it.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>

#include "p2p/ucx/ucx_wire.h"
#include "pipe_bootstrap.h"
#include "runtime/bootstrap/peer_info.h"
#include "ucx_test_support.h"

namespace gpurun::p2p {
namespace {

using testing::ForkedPair;
using testing::NextArrival;
using testing::Pattern;
using testing::ProgressUntil;
using testing::RecordingSink;
using testing::UcxMode;

StatusOr<std::unique_ptr<UcxWire>> MakeWire(Bootstrap& boot) {
  GR_ASSIGN_OR_RETURN(std::vector<PeerInfo> peers, ExchangePeerInfo(boot));
  return UcxWire::Create(boot, peers, {1 - boot.identity().rank});
}

// The child: takes one message, tells the parent, and dies without Shutdown.
[[noreturn]] void ChildThatDies(ForkedPair& pair) {
  StatusOr<std::unique_ptr<UcxWire>> wire = MakeWire(*pair.bootstrap);
  if (!wire.ok()) _exit(2);
  RecordingSink sink;
  (*wire)->set_sink(&sink);
  if (!NextArrival(**wire, sink, 30).has_value()) _exit(3);
  if (!ProgressUntil(
          **wire, [&] { return !sink.arrivals.empty(); }, 30))
    _exit(4);  // the large one
  if (!pair.bootstrap->Barrier().ok()) _exit(5);
  _exit(0);  // no Shutdown: the parent must notice on its own
}

class UcxForkTest : public ::testing::TestWithParam<UcxMode> {
 protected:
  testing::ScopedUcxEnv env_{GetParam()};
};

TEST_P(UcxForkTest, DeadPeerFailsItsOperations) {
  ForkedPair pair = testing::ForkPair();
  ASSERT_GE(pair.rank, 0);
  if (pair.rank == 1) ChildThatDies(pair);

  StatusOr<std::unique_ptr<UcxWire>> made = MakeWire(*pair.bootstrap);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  UcxWire& wire = **made;
  RecordingSink sink;
  wire.set_sink(&sink);
  const std::vector<std::byte> small = Pattern(1, 100);
  const std::vector<std::byte> large = Pattern(2, 4 << 20);
  ASSERT_TRUE(testing::SendAndWait(wire, 1, {.bytes = small.size()}, small.data()).ok());
  std::optional<Status> sent;
  ASSERT_TRUE(wire.Send(1, {.tag = 1, .bytes = large.size()}, large.data(), [&](const Status& s) { sent = s; }).ok());
  // The child holds the large payload unfetched, then exits.
  ASSERT_TRUE(ProgressUntil(
      wire, [&] { return pair.bootstrap->PeerWaiting(); }, 30));
  EXPECT_FALSE(sent.has_value());
  ASSERT_TRUE(pair.bootstrap->Barrier().ok());
  int status = 0;
  ASSERT_EQ(waitpid(pair.child, &status, 0), pair.child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;

  ASSERT_TRUE(ProgressUntil(
      wire, [&] { return !sink.failures.empty() && sent.has_value(); }, 60))
      << "no failure reported";
  EXPECT_EQ(sink.failures.size(), 1u);
  EXPECT_EQ(sink.failures[0].first, 1);
  EXPECT_EQ(sink.failures[0].second.code(), grRemoteError);
  EXPECT_NE(sink.failures[0].second.message().find("rank 1"), std::string::npos) << sink.failures[0].second.message();
  EXPECT_EQ(sent->code(), grRemoteError) << sent->ToString();
  EXPECT_NE(sent->message().find("rank 1"), std::string::npos) << sent->message();
  const Status again = wire.Send(1, {.bytes = small.size()}, small.data(), [](const Status&) {});
  EXPECT_EQ(again.code(), grRemoteError) << again.ToString();
  wire.Shutdown(InternalError("test over"));
}

INSTANTIATE_TEST_SUITE_P(Modes, UcxForkTest, ::testing::Values(UcxMode::kDefault, UcxMode::kTcp),
                         [](const ::testing::TestParamInfo<UcxMode>& info) { return testing::ModeName(info.param); });

}  // namespace
}  // namespace gpurun::p2p
