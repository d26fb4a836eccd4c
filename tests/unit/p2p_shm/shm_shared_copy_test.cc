// The shared copy of large CMA payloads (p2p/shm/shm_shared_copy.h) through
// the wire, with small chunks so a payload has many: the receiver finishes
// alone when the sender never runs, the sender writes chunks when it does,
// payloads of every shape arrive intact with the guard bytes after them
// untouched, more payloads than slots at once, and shutdown mid-copy.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "runtime/base/params.h"
#include "tests/unit/p2p_shm/shm_test_util.h"

namespace gpurun::p2p {
namespace {

using testing::CreateShmJob;
using testing::DoneFlag;
using testing::DriveUntil;
using testing::Pattern;
using testing::ShmJob;

constexpr size_t kChunk = 4096;
constexpr size_t kGuard = 512;

class ShmSharedCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_CMA", "on").ok());
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_SHARE_CHUNK", std::to_string(kChunk)).ok());
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_EAGER_LIMIT", "1024").ok());  // below two chunks
  }
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

MatchHeader Header(int tag, size_t bytes) { return MatchHeader{3, 0, tag, 0, bytes}; }

// One large send 0 → 1 and its receive buffer (guard bytes after `take`).
struct Transfer {
  std::vector<std::byte> data;
  std::vector<std::byte> buffer;
  size_t take = 0;
  DoneFlag sent;
  DoneFlag fetched;
  std::unique_ptr<PendingPayload> pending;

  void ExpectIntact() const {
    ASSERT_TRUE(fetched.done() && sent.done());
    EXPECT_TRUE(fetched.status->ok()) << fetched.status->ToString();
    EXPECT_TRUE(sent.status->ok()) << sent.status->ToString();
    EXPECT_TRUE(std::equal(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(take), data.begin()));
    for (size_t i = take; i < buffer.size(); ++i) ASSERT_EQ(buffer[i], std::byte{0xEE}) << "guard byte " << i;
  }
};

// Posts the send and delivers its RTS to rank 1 (driving both wires until
// it arrives: the HELP only goes out at the fetch).
void Start(ShmJob& job, Transfer& t, size_t bytes, size_t take, int seed) {
  t.data = Pattern(bytes, seed);
  t.take = take;
  t.buffer.assign(take + kGuard, std::byte{0xEE});
  ASSERT_TRUE(job.wire(0).Send(1, Header(seed, bytes), t.data.data(), t.sent.Callback()).ok());
  auto& arrivals = job.sink(1).arrivals;
  ASSERT_TRUE(DriveUntil(job, [&] { return !arrivals.empty(); }));
  t.pending = std::move(arrivals.front().pending);
  arrivals.erase(arrivals.begin());
  ASSERT_NE(t.pending, nullptr);
}

bool DriveOne(ShmJob& job, int rank, const std::function<bool()>& done) {
  for (int i = 0; i < 1000000 && !done(); ++i) {
    if (!job.wire(rank).Progress().ok()) return false;
  }
  return done();
}

TEST_F(ShmSharedCopyTest, ReceiverFinishesAloneWhenTheSenderNeverRuns) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  Transfer t;
  Start(job, t, 40 * kChunk + 17, 40 * kChunk + 17, 1);
  t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());
  ASSERT_TRUE(DriveOne(job, 1, [&] { return t.fetched.done(); })) << "the receive waited for the sender";
  EXPECT_EQ(job.wire(0).SharedChunksWritten(), 0u);
  ASSERT_TRUE(DriveUntil(job, [&] { return t.sent.done(); }));
  t.ExpectIntact();
  EXPECT_EQ(job.wire(0).SharedChunksWritten(), 0u) << "an offer read after the copy finished takes nothing";
}

TEST_F(ShmSharedCopyTest, SenderThatRunsFirstWritesTheRest) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  Transfer t;
  constexpr uint64_t kChunks = 40;
  Start(job, t, kChunks * kChunk, kChunks * kChunk, 2);
  t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());  // the receiver takes half here
  ASSERT_FALSE(t.fetched.done());
  // Only the sender runs: it reads the HELP and writes every chunk left.
  const uint64_t left = kChunks / 2;
  for (int i = 0; i < 1000 && job.wire(0).SharedChunksWritten() < left; ++i) ASSERT_TRUE(job.wire(0).Progress().ok());
  EXPECT_EQ(job.wire(0).SharedChunksWritten(), left);
  ASSERT_TRUE(DriveUntil(job, [&] { return t.fetched.done() && t.sent.done(); }));
  t.ExpectIntact();
}

TEST_F(ShmSharedCopyTest, PayloadsOfEveryShapeArriveIntact) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  const struct {
    size_t bytes, take;
  } shapes[] = {
      {2 * kChunk, 2 * kChunk},          // the smallest shared
      {2 * kChunk - 1, 2 * kChunk - 1},  // one byte short: copied alone
      {2 * kChunk + 1, 2 * kChunk + 1},  // a one-byte last chunk
      {97 * kChunk + 1234, 97 * kChunk + 1234},
      {50 * kChunk, 7 * kChunk + 3},  // truncating fetch
      {50 * kChunk + 5, 0},           // fetch of nothing
  };
  int seed = 10;
  for (const auto& shape : shapes) {
    SCOPED_TRACE("bytes=" + std::to_string(shape.bytes) + " take=" + std::to_string(shape.take));
    Transfer t;
    Start(job, t, shape.bytes, shape.take, seed++);
    t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());
    ASSERT_TRUE(DriveUntil(job, [&] { return t.fetched.done() && t.sent.done(); }));
    t.ExpectIntact();
  }
  EXPECT_GT(job.wire(0).SharedChunksWritten(), 0u) << "driven in turn, the sender should have written some chunks";
}

TEST_F(ShmSharedCopyTest, MoreConcurrentPayloadsThanSlots) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  std::vector<Transfer> transfers(9);  // more than kShareSlots: the rest are copied alone
  for (size_t i = 0; i < transfers.size(); ++i) {
    const size_t bytes = (10 + 3 * i) * kChunk + i;
    Start(job, transfers[i], bytes, bytes, 20 + static_cast<int>(i));
  }
  for (Transfer& t : transfers) t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());
  ASSERT_TRUE(DriveUntil(job, [&] {
    return std::all_of(transfers.begin(), transfers.end(),
                       [](const Transfer& t) { return t.fetched.done() && t.sent.done(); });
  }));
  for (const Transfer& t : transfers) t.ExpectIntact();
  // The slots are free again: another round shares as well.
  const uint64_t before = job.wire(0).SharedChunksWritten();
  Transfer again;
  Start(job, again, 30 * kChunk, 30 * kChunk, 40);
  again.pending->Fetch(again.buffer.data(), again.take, again.fetched.Callback());
  ASSERT_TRUE(DriveUntil(job, [&] { return again.fetched.done() && again.sent.done(); }));
  again.ExpectIntact();
  EXPECT_GT(job.wire(0).SharedChunksWritten(), before);
}

TEST_F(ShmSharedCopyTest, OffSettingCopiesAlone) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_SHARE_CHUNK", "0").ok());
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  Transfer t;
  Start(job, t, 64 * kChunk, 64 * kChunk, 3);
  t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());
  EXPECT_TRUE(t.fetched.done()) << "copied at once, in the fetch";
  ASSERT_TRUE(DriveUntil(job, [&] { return t.sent.done(); }));
  t.ExpectIntact();
  EXPECT_EQ(job.wire(0).SharedChunksWritten(), 0u);
}

TEST_F(ShmSharedCopyTest, ShutdownMidCopyCompletesTheReceive) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  Transfer t;
  Start(job, t, 40 * kChunk, 40 * kChunk, 4);
  t.pending->Fetch(t.buffer.data(), t.take, t.fetched.Callback());
  ASSERT_TRUE(job.wire(0).Progress().ok());  // the sender takes a chunk or two
  ASSERT_FALSE(t.fetched.done());
  job.wire(1).Shutdown(Status(grRemoteError, "finalizing"));
  ASSERT_TRUE(t.fetched.done());
  EXPECT_EQ(t.fetched.status->message(), "finalizing");
  // The sender takes nothing more of it.
  const uint64_t written = job.wire(0).SharedChunksWritten();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(job.wire(0).Progress().ok());
  EXPECT_EQ(job.wire(0).SharedChunksWritten(), written);
  job.wire(0).Shutdown(Status(grRemoteError, "finalizing"));
}

}  // namespace
}  // namespace gpurun::p2p
