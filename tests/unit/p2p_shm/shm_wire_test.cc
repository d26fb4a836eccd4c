// ShmWire end to end over InprocBootstrap: sizes around the eager limit and
// far above it, order of mixed traffic, full-ring backpressure, segments
// unlinked after Create. Each test runs with GPURUN_SHM_CMA=on
// (process_vm_readv on our own pid) and =off (bounce buffers).
#include <gtest/gtest.h>

#include "runtime/base/params.h"
#include "tests/unit/p2p_shm/shm_test_util.h"

namespace gpurun::p2p {
namespace {

using testing::Arrival;
using testing::CreateShmJob;
using testing::DoneFlag;
using testing::DriveUntil;
using testing::Pattern;
using testing::SegmentsOf;
using testing::ShmJob;

constexpr size_t kEager = 16 << 10;  // GPURUN_SHM_EAGER_LIMIT's default

class ShmWireTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_CMA", GetParam()).ok()); }
  void TearDown() override { ParamRegistry::Global().Reset(); }
  bool cma() const { return std::string(GetParam()) == "on"; }
};

MatchHeader Header(int tag, size_t bytes) { return MatchHeader{7, 0, tag, 0, bytes}; }

// Sends one message 0 → 1, receives it fully, checks it.
void RoundTrip(ShmJob& job, size_t bytes, int seed) {
  SCOPED_TRACE("bytes=" + std::to_string(bytes));
  const std::vector<std::byte> data = Pattern(bytes, seed);
  DoneFlag sent;
  ASSERT_TRUE(job.wire(0).Send(1, Header(seed, bytes), data.data(), sent.Callback()).ok());
  auto& arrivals = job.sink(1).arrivals;
  ASSERT_TRUE(DriveUntil(job, [&] { return !arrivals.empty(); }));
  Arrival a = std::move(arrivals.front());
  arrivals.clear();
  EXPECT_EQ(a.source, 0);
  EXPECT_EQ(a.header.tag, seed);
  EXPECT_EQ(a.header.context, 7u);
  ASSERT_EQ(a.header.bytes, bytes);
  if (bytes <= kEager) {
    EXPECT_EQ(a.pending, nullptr);
  } else {
    ASSERT_NE(a.pending, nullptr);
    a.data.assign(bytes, std::byte{0});
    DoneFlag fetched;
    a.pending->Fetch(a.data.data(), bytes, fetched.Callback());
    ASSERT_TRUE(DriveUntil(job, [&] { return fetched.done(); }));
    EXPECT_TRUE(fetched.status->ok()) << fetched.status->ToString();
  }
  ASSERT_TRUE(DriveUntil(job, [&] { return sent.done(); }));
  EXPECT_TRUE(sent.status->ok()) << sent.status->ToString();
  EXPECT_EQ(*sent.calls, 1);
  EXPECT_TRUE(a.data == data);
}

TEST_P(ShmWireTest, SizesAroundAndAboveTheEagerLimit) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok()) << job.results[0].status().ToString();
  EXPECT_EQ(job.wire(0).EagerLimit(1), static_cast<int64_t>(kEager));
  EXPECT_EQ(job.wire(1).UsesCma(0), cma());
  EXPECT_STREQ(job.wire(0).name(), "shm");
  EXPECT_TRUE(job.wire(0).Reaches(1));
  EXPECT_FALSE(job.wire(0).Reaches(0));
  int seed = 0;
  for (size_t bytes : {size_t{0}, size_t{1}, kEager - 1, kEager, kEager + 1, (size_t{1} << 20) + 5, size_t{64} << 20}) {
    RoundTrip(job, bytes, ++seed);
  }
}

TEST_P(ShmWireTest, SegmentsAreUnlinkedAfterCreate) {
  ShmJob job = CreateShmJob({.ranks = 3});
  ASSERT_TRUE(job.all_ok());
  EXPECT_TRUE(SegmentsOf(job.job_id).empty());
  RoundTrip(job, 100, 1);  // still connected through the mappings
}

TEST_P(ShmWireTest, ManyMixedMessagesArriveInOrder) {
  ShmJob job = CreateShmJob({.ranks = 3});
  ASSERT_TRUE(job.all_ok());
  for (int r = 0; r < 3; ++r) job.sink(r).auto_fetch = true;
  constexpr int kPerPair = 400;
  const size_t sizes[] = {0, 8, 1000, kEager, kEager + 1, 70000, 3, (256 << 10) + 5};
  std::vector<std::vector<std::byte>> payloads;
  payloads.reserve(8);
  for (int i = 0; i < 8; ++i) payloads.push_back(Pattern(sizes[i], i));
  int completed = 0;
  for (int i = 0; i < kPerPair; ++i) {
    for (int from = 0; from < 3; ++from) {
      for (int to = 0; to < 3; ++to) {
        if (from == to) continue;
        const auto& p = payloads[i % 8];
        ASSERT_TRUE(job.wire(from)
                        .Send(to, Header(i, p.size()), p.data(),
                              [&](const Status& s) {
                                EXPECT_TRUE(s.ok()) << s.ToString();
                                ++completed;
                              })
                        .ok());
      }
    }
    if (i % 50 == 0) {
      for (int r = 0; r < 3; ++r) ASSERT_TRUE(job.wire(r).Progress().ok());  // some progress in between
    }
  }
  ASSERT_TRUE(DriveUntil(job, [&] {
    int fetched = 0;
    for (int r = 0; r < 3; ++r) fetched += job.sink(r).arrivals.size() == 2 * kPerPair ? 1 : 0;
    return completed == 6 * kPerPair && fetched == 3;
  }));
  int rendezvous = 0;
  for (int i = 0; i < kPerPair; ++i) rendezvous += sizes[i % 8] > kEager ? 2 : 0;
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(DriveUntil(job, [&] { return job.sink(r).fetches_done == rendezvous; }));
    EXPECT_TRUE(job.sink(r).fetch_errors.empty());
    std::vector<int> next(3, 0);
    for (const Arrival& a : job.sink(r).arrivals) {
      ASSERT_EQ(a.header.tag, next[a.source]) << "rank " << r << " from " << a.source;
      EXPECT_TRUE(a.data == payloads[next[a.source] % 8]) << "tag " << a.header.tag;
      ++next[a.source];
    }
  }
}

TEST_P(ShmWireTest, FullRingQueuesAndDrainsInOrder) {
  ShmJob job = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(job.all_ok());
  constexpr int kMessages = 3000;
  const std::vector<std::byte> data = Pattern(1024, 5);
  int completed = 0;
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_TRUE(job.wire(0)
                    .Send(1, Header(i, data.size()), data.data(),
                          [&](const Status& s) {
                            EXPECT_TRUE(s.ok());
                            ++completed;
                          })
                    .ok());
  }
  // The ring holds far fewer than 3000 KiB: the rest waits, nothing blocks.
  EXPECT_GT(completed, 0);
  EXPECT_LT(completed, kMessages);
  // Sender progress alone cannot drain: the receiver must consume.
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(job.wire(0).Progress().ok());
  EXPECT_LT(completed, kMessages);
  ASSERT_TRUE(DriveUntil(job, [&] { return completed == kMessages; }));
  ASSERT_TRUE(DriveUntil(job, [&] { return job.sink(1).arrivals.size() == kMessages; }));
  for (int i = 0; i < kMessages; ++i) ASSERT_EQ(job.sink(1).arrivals[i].header.tag, i);
  EXPECT_TRUE(job.sink(1).arrivals.back().data == data);
}

TEST_P(ShmWireTest, EmptyReachOnEveryRank) {
  ShmJob job = CreateShmJob({.ranks = 3, .reach = [](int) { return std::vector<int>{}; }});
  ASSERT_TRUE(job.all_ok());
  EXPECT_FALSE(job.wire(0).Reaches(1));
  EXPECT_EQ(job.wire(0).Send(1, Header(0, 0), nullptr, nullptr).code(), grInvalidArgument);
  EXPECT_EQ(*job.wire(0).Progress(), 0);
}

TEST_P(ShmWireTest, PartialReach) {
  // 0 — 1 connected, 2 alone.
  ShmJob job =
      CreateShmJob({.ranks = 3, .reach = [](int r) { return r == 2 ? std::vector<int>{} : std::vector<int>{1 - r}; }});
  ASSERT_TRUE(job.all_ok());
  EXPECT_TRUE(job.wire(1).Reaches(0));
  EXPECT_FALSE(job.wire(2).Reaches(0));
  RoundTrip(job, 5, 1);
}

TEST_P(ShmWireTest, EagerLimitIsHonouredAndClamped) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_EAGER_LIMIT", "0").ok());
  ShmJob zero = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(zero.all_ok());
  EXPECT_EQ(zero.wire(0).EagerLimit(1), 0);
  const std::byte one[1] = {std::byte{9}};
  ASSERT_TRUE(zero.wire(0).Send(1, Header(1, 1), one, nullptr).ok());
  ASSERT_TRUE(DriveUntil(zero, [&] { return !zero.sink(1).arrivals.empty(); }));
  EXPECT_NE(zero.sink(1).arrivals[0].pending, nullptr);  // 1 byte > limit: rendezvous

  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_SHM_EAGER_LIMIT", "1G").ok());
  ShmJob huge = CreateShmJob({.ranks = 2});
  ASSERT_TRUE(huge.all_ok());
  const int64_t clamped = huge.wire(0).EagerLimit(1);
  EXPECT_GE(clamped, int64_t{1} << 20);
  EXPECT_LT(clamped, int64_t{1} << 30);
  const std::vector<std::byte> data = Pattern(static_cast<size_t>(clamped), 3);
  ASSERT_TRUE(huge.wire(0).Send(1, Header(2, data.size()), data.data(), nullptr).ok());
  ASSERT_TRUE(DriveUntil(huge, [&] { return !huge.sink(1).arrivals.empty(); }));
  EXPECT_EQ(huge.sink(1).arrivals[0].pending, nullptr);
  EXPECT_TRUE(huge.sink(1).arrivals[0].data == data);
}

INSTANTIATE_TEST_SUITE_P(Cma, ShmWireTest, ::testing::Values("on", "off"));

}  // namespace
}  // namespace gpurun::p2p
