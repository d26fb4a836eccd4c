// The rendezvous edge cases: truncating fetch (guard bytes stay), payload
// dropped unfetched, peer process gone, shutdown with operations pending,
// and setup failures that must leave nothing behind.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "runtime/base/params.h"
#include "tests/unit/p2p_shm/shm_test_util.h"

namespace gpurun::p2p {
namespace {

using testing::CreateShmJob;
using testing::DoneFlag;
using testing::DriveUntil;
using testing::Pattern;
using testing::SegmentsOf;
using testing::ShmJob;

class ShmRendezvousTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_CMA", GetParam()).ok()); }
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

MatchHeader Header(int tag, size_t bytes) { return MatchHeader{3, 0, tag, 0, bytes}; }

// Sends `bytes` 0 → 1 and returns rank 1's pending payload.
std::unique_ptr<PendingPayload> SendLarge(ShmJob& job, const std::vector<std::byte>& data, const DoneFlag& sent) {
  EXPECT_TRUE(job.wire(0).Send(1, Header(1, data.size()), data.data(), sent.Callback()).ok());
  auto& arrivals = job.sink(1).arrivals;
  EXPECT_TRUE(DriveUntil(job, [&] { return !arrivals.empty(); }));
  if (arrivals.empty()) return nullptr;
  std::unique_ptr<PendingPayload> pending = std::move(arrivals.front().pending);
  arrivals.clear();
  return pending;
}

pid_t DeadPid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST_P(ShmRendezvousTest, TruncatingFetchKeepsGuardBytesAndReleasesSender) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  for (size_t take : {size_t{5000}, size_t{0}, size_t{300000}}) {
    SCOPED_TRACE("take=" + std::to_string(take));
    const std::vector<std::byte> data = Pattern(400000, static_cast<int>(take));
    DoneFlag sent;
    std::unique_ptr<PendingPayload> pending = SendLarge(job, data, sent);
    ASSERT_NE(pending, nullptr);
    std::vector<std::byte> buffer(take + 256, std::byte{0xEE});
    DoneFlag fetched;
    pending->Fetch(buffer.data(), take, fetched.Callback());
    ASSERT_TRUE(DriveUntil(job, [&] { return fetched.done() && sent.done(); }));
    EXPECT_TRUE(fetched.status->ok()) << fetched.status->ToString();
    EXPECT_TRUE(sent.status->ok()) << sent.status->ToString();
    EXPECT_TRUE(std::equal(buffer.begin(), buffer.begin() + take, data.begin()));
    for (size_t i = take; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], std::byte{0xEE}) << "guard byte " << i;
  }
}

TEST_P(ShmRendezvousTest, DroppedPayloadFailsTheSend) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  const std::vector<std::byte> data = Pattern(100000, 1);
  DoneFlag sent;
  std::unique_ptr<PendingPayload> pending = SendLarge(job, data, sent);
  ASSERT_NE(pending, nullptr);
  pending.reset();
  ASSERT_TRUE(DriveUntil(job, [&] { return sent.done(); }));
  EXPECT_EQ(sent.status->code(), grRemoteError) << sent.status->ToString();
  // The wire still works afterwards.
  DoneFlag again;
  ASSERT_TRUE(job.wire(0).Send(1, Header(2, 10), data.data(), again.Callback()).ok());
  ASSERT_TRUE(DriveUntil(job, [&] { return again.done() && job.sink(1).arrivals.size() == 1; }));
}

TEST_P(ShmRendezvousTest, DeadPeerFailsOutstandingRendezvous) {
  const pid_t dead = DeadPid();
  // Rank 0 believes rank 1 runs as a process that has exited.
  ShmJob job = CreateShmJob({.ranks = 2, .edit_peers = [dead](int rank, std::vector<PeerInfo>& peers) {
                               if (rank == 0) peers[1].pid = dead;
                             }});
  if (std::string(GetParam()) == "on") {
    // process_vm_readv of rank 1 cannot work: rank 0 fails, and so does rank 1.
    ASSERT_FALSE(job.results[0].ok());
    ASSERT_FALSE(job.results[1].ok());
    EXPECT_EQ(job.results[0].status().code(), grUnsupported) << job.results[0].status().ToString();
    EXPECT_NE(job.results[1].status().message().find("rank 0"), std::string::npos);
    EXPECT_TRUE(SegmentsOf(job.job_id).empty());
    return;
  }
  ASSERT_TRUE(job.all_ok());
  const std::vector<std::byte> data = Pattern(100000, 1);
  DoneFlag sent;
  ASSERT_TRUE(job.wire(0).Send(1, Header(1, data.size()), data.data(), sent.Callback()).ok());
  // Rank 1 never answers; rank 0 notices the "dead" pid.
  auto& failures = job.sink(0).failures;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (failures.empty() && std::chrono::steady_clock::now() < deadline) ASSERT_TRUE(job.wire(0).Progress().ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].first, 1);
  EXPECT_EQ(failures[0].second.code(), grRemoteError);
  ASSERT_TRUE(sent.done());
  EXPECT_EQ(sent.status->code(), grRemoteError);
  EXPECT_NE(sent.status->message().find("rank 1"), std::string::npos) << sent.status->ToString();
  EXPECT_EQ(job.wire(0).Send(1, Header(2, 1), data.data(), nullptr).code(), grRemoteError);
}

TEST_P(ShmRendezvousTest, ShutdownCompletesPendingOperations) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  const std::vector<std::byte> big = Pattern(200000, 1);
  const std::vector<std::byte> small = Pattern(2000, 2);
  DoneFlag rendezvous;
  std::unique_ptr<PendingPayload> pending = SendLarge(job, big, rendezvous);
  ASSERT_NE(pending, nullptr);
  std::vector<DoneFlag> queued(500);  // more than the ring holds
  for (DoneFlag& d : queued) ASSERT_TRUE(job.wire(0).Send(1, Header(3, small.size()), small.data(), d.Callback()).ok());
  ASSERT_FALSE(queued.back().done());
  job.wire(0).Shutdown(Status(grRemoteError, "finalizing"));
  EXPECT_EQ(rendezvous.status->message(), "finalizing");
  EXPECT_EQ(queued.back().status->message(), "finalizing");
  EXPECT_EQ(*queued.back().calls, 1);
  EXPECT_EQ(job.wire(0).Send(1, Header(4, 1), small.data(), nullptr).code(), grInvalidUsage);
  // Rank 1 shuts down, then its payload fetches: completes with its reason.
  job.wire(1).Shutdown(Status(grInvalidUsage, "gone"));
  DoneFlag fetched;
  std::vector<std::byte> buffer(big.size());
  pending->Fetch(buffer.data(), buffer.size(), fetched.Callback());
  EXPECT_EQ(fetched.status->message(), "gone");
}

TEST_P(ShmRendezvousTest, PayloadMayOutliveTheWire) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  const std::vector<std::byte> data = Pattern(100000, 1);
  DoneFlag sent;
  std::unique_ptr<PendingPayload> pending = SendLarge(job, data, sent);
  job.results[1].value().reset();
  pending.reset();  // no wire to tell: must not crash
  job.results[0].value().reset();
  EXPECT_TRUE(sent.done());
}

TEST_P(ShmRendezvousTest, AsymmetricReachFailsEveryRank) {
  // Rank 0 reaches 2, but rank 2 does not reach 0.
  ShmJob bad =
      CreateShmJob({.ranks = 3, .reach = [](int r) {
                      return r == 0 ? std::vector<int>{1, 2} : (r == 1 ? std::vector<int>{0} : std::vector<int>{});
                    }});
  for (int r = 0; r < 3; ++r) EXPECT_FALSE(bad.results[r].ok()) << "rank " << r;
  EXPECT_NE(bad.results[0].status().message().find("symmetric"), std::string::npos)
      << bad.results[0].status().ToString();
  EXPECT_TRUE(SegmentsOf(bad.job_id).empty());
}

TEST_P(ShmRendezvousTest, BadReachFailsEveryRank) {
  ShmJob job = CreateShmJob({.ranks = 2, .reach = [](int r) { return std::vector<int>{r}; }});
  for (int r = 0; r < 2; ++r) {
    ASSERT_FALSE(job.results[r].ok());
    EXPECT_EQ(job.results[r].status().code(), grInvalidArgument) << job.results[r].status().ToString();
  }
  EXPECT_TRUE(SegmentsOf(job.job_id).empty());
}

INSTANTIATE_TEST_SUITE_P(Cma, ShmRendezvousTest, ::testing::Values("on", "off"));

}  // namespace
}  // namespace gpurun::p2p
