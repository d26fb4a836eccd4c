// Wire choice per peer for every GPURUN_P2P_TRANSPORT value, and the pure
// helpers next to it: the match predicate, the progress backoff and the
// request pool.
#include "p2p/transport_plan.h"

#include <gtest/gtest.h>

#include <optional>

#include "p2p/backoff.h"
#include "p2p/match_queue.h"
#include "p2p/request_pool.h"
#include "runtime/base/param_table.h"

namespace gpurun::p2p {
namespace {

// `nodes[r]` is rank r's node.
std::vector<PeerInfo> Table(const std::vector<int>& nodes) {
  std::vector<PeerInfo> peers;
  peers.reserve(nodes.size());
  for (int r = 0; r < static_cast<int>(nodes.size()); ++r) {
    peers.push_back(PeerInfo{r, 0, 1, nodes[r], 100 + r, "host" + std::to_string(nodes[r])});
  }
  return peers;
}

TEST(TransportPlanTest, AutoUsesShmWithinANodeAndUcxAcross) {
  auto plan = PlanTransports(params::kP2pAuto, 1, Table({0, 0, 1, 1}));
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->create_shm);
  EXPECT_TRUE(plan->create_ucx);
  EXPECT_EQ(plan->shm_reach, std::vector<int>({0}));
  EXPECT_EQ(plan->ucx_reach, std::vector<int>({2, 3}));
  EXPECT_EQ(plan->wire_of_peer,
            std::vector<WireKind>({WireKind::kShm, WireKind::kSelf, WireKind::kUcx, WireKind::kUcx}));
}

TEST(TransportPlanTest, EveryRankCreatesTheSameWiresEvenWithNothingToReach) {
  // Rank 2 is alone on node 1: it still creates the shm wire (collective).
  auto plan = PlanTransports(params::kP2pAuto, 2, Table({0, 0, 1}));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->create_shm);
  EXPECT_TRUE(plan->shm_reach.empty());
  EXPECT_TRUE(plan->create_ucx);
  // One node: no ucx wire at all.
  plan = PlanTransports(params::kP2pAuto, 0, Table({0, 0}));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->create_shm);
  EXPECT_FALSE(plan->create_ucx);
  // One rank: no wire.
  plan = PlanTransports(params::kP2pAuto, 0, Table({0}));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create_shm);
  EXPECT_FALSE(plan->create_ucx);
}

TEST(TransportPlanTest, ForcedShmRejectsAPeerOnAnotherNode) {
  auto plan = PlanTransports(params::kP2pShm, 0, Table({0, 0, 1}));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), grInvalidArgument);
  EXPECT_NE(plan.status().message().find("rank 2 is on node 1 (host host1)"), std::string::npos)
      << plan.status().message();
  plan = PlanTransports(params::kP2pShm, 0, Table({0, 0, 0}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->shm_reach, std::vector<int>({1, 2}));
}

TEST(TransportPlanTest, ForcedUcxReachesEveryPeer) {
  auto plan = PlanTransports(params::kP2pUcx, 0, Table({0, 0, 0}));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->create_shm);
  EXPECT_TRUE(plan->create_ucx);
  EXPECT_EQ(plan->ucx_reach, std::vector<int>({1, 2}));
}

TEST(MatchTest, WildcardsAndExactValues) {
  const MatchHeader h{0, 3, 7, 0};
  EXPECT_TRUE(Matches(3, 7, h));
  EXPECT_TRUE(Matches(GR_ANY_SOURCE, 7, h));
  EXPECT_TRUE(Matches(3, GR_ANY_TAG, h));
  EXPECT_TRUE(Matches(GR_ANY_SOURCE, GR_ANY_TAG, h));
  EXPECT_FALSE(Matches(2, 7, h));
  EXPECT_FALSE(Matches(3, 8, h));
}

// The oldest match, removed (moved out, then dropped), as the engine takes one.
std::optional<Unexpected> Take(MatchQueue& q, int source, int tag) {
  Unexpected* m = q.FindUnexpected(source, tag);
  if (m == nullptr) return std::nullopt;
  std::optional<Unexpected> taken(std::move(*m));
  q.Drop(m);
  return taken;
}

TEST(MatchQueueTest, OldestMatchFirst) {
  MatchQueue q;
  for (int i = 0; i < 3; ++i)
    q.EnqueueNew() = Unexpected{1, MatchHeader{0, 1, i % 2, 0, static_cast<uint64_t>(i)}, {}, {}};
  EXPECT_EQ(q.PeekUnexpected(1, 0)->header.bytes, 0u);
  EXPECT_EQ(Take(q, GR_ANY_SOURCE, 1)->header.bytes, 1u);
  EXPECT_EQ(Take(q, 1, GR_ANY_TAG)->header.bytes, 0u);
  EXPECT_EQ(Take(q, 1, 0)->header.bytes, 2u);
  EXPECT_FALSE(Take(q, GR_ANY_SOURCE, GR_ANY_TAG).has_value());
  Request a, b;
  a.peer = GR_ANY_SOURCE;
  a.tag = 5;
  b.peer = 2;
  b.tag = GR_ANY_TAG;
  q.Post(&a);
  q.Post(&b);
  EXPECT_EQ(q.TakePosted(MatchHeader{0, 2, 9, 0, 0}), &b);
  EXPECT_EQ(q.TakePosted(MatchHeader{0, 2, 9, 0, 0}), nullptr);
  EXPECT_EQ(q.TakePosted(MatchHeader{0, 4, 5, 0, 0}), &a);
}

// Dropped entries come back for later arrivals (data capacity kept, every
// field reset) without disturbing arrival order.
TEST(MatchQueueTest, DroppedEntriesAreReusedInArrivalOrder) {
  MatchQueue q;
  auto arrive = [&](int tag, size_t bytes) {
    Unexpected& m = q.EnqueueNew();
    EXPECT_EQ(m.world_source, -1);
    EXPECT_EQ(m.header.bytes, 0u);
    EXPECT_TRUE(m.data.empty());
    EXPECT_EQ(m.pending, nullptr);
    EXPECT_EQ(m.sync_id, 0u);
    m.world_source = 1;
    m.header = MatchHeader{0, 1, tag, 0, bytes};
    m.data.assign(bytes, std::byte{static_cast<unsigned char>(tag)});
    m.sync_id = static_cast<uint64_t>(tag) + 100;
  };
  for (int round = 0; round < 50; ++round) {
    arrive(1, 64);
    arrive(2, 8);
    arrive(1, 16);
    Unexpected* second = q.FindUnexpected(GR_ANY_SOURCE, 2);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->data.size(), 8u);
    EXPECT_EQ(second->sync_id, 102u);
    q.Drop(second);
    EXPECT_EQ(q.unexpected_count(), 2u);
    Unexpected* first = q.FindUnexpected(1, 1);
    EXPECT_EQ(first->header.bytes, 64u);
    q.Drop(first);
    EXPECT_EQ(Take(q, 1, GR_ANY_TAG)->data, std::vector<std::byte>(16, std::byte{1}));
    EXPECT_EQ(q.unexpected_count(), 0u);
    EXPECT_EQ(q.FindUnexpected(GR_ANY_SOURCE, GR_ANY_TAG), nullptr);
  }
  q.Drop(nullptr);  // not queued: nothing happens
  EXPECT_EQ(q.unexpected_count(), 0u);
}

TEST(BackoffTest, SpinsThenYieldsThenSleepsLongerUpToTheLimit) {
  using std::chrono::hours;
  using std::chrono::microseconds;
  using std::chrono::nanoseconds;
  Backoff spinning({hours(1), hours(1), microseconds(8)});
  for (int i = 0; i < 1000; ++i) spinning.Pause();
  EXPECT_EQ(spinning.phase(), Backoff::Phase::kSpin);
  EXPECT_EQ(spinning.next_sleep().count(), 0);

  Backoff yielding({nanoseconds(0), hours(1), microseconds(8)});
  for (int i = 0; i < 10; ++i) yielding.Pause();
  EXPECT_EQ(yielding.phase(), Backoff::Phase::kYield);
  EXPECT_EQ(yielding.next_sleep().count(), 0);

  Backoff b({nanoseconds(0), nanoseconds(0), microseconds(8)});
  b.Pause();  // yield only
  EXPECT_EQ(b.phase(), Backoff::Phase::kSleep);
  EXPECT_EQ(b.next_sleep(), microseconds(1));
  for (int i = 0; i < 6; ++i) b.Pause();
  // 8 us, or more once the wait is long (NextSleep): real sleeps overshoot.
  EXPECT_GE(b.next_sleep(), microseconds(8));
  EXPECT_LE(b.next_sleep(), Backoff::kLongSleepFactor * microseconds(8));
  b.Reset();
  EXPECT_EQ(b.phase(), Backoff::Phase::kSpin);
  EXPECT_EQ(b.next_sleep().count(), 0);
}

TEST(BackoffTest, PhasesGoByTimeWithoutProgress) {
  constexpr auto kSpin = std::chrono::milliseconds(2);
  Backoff b({kSpin, std::chrono::hours(1), std::chrono::microseconds(8)});
  const auto start = Backoff::Clock::now();
  while (b.phase() == Backoff::Phase::kSpin) b.Pause();
  EXPECT_GE(Backoff::Clock::now() - start, kSpin);
  EXPECT_EQ(b.phase(), Backoff::Phase::kYield);
  b.Reset();
  b.Pause();
  EXPECT_EQ(b.phase(), Backoff::Phase::kSpin) << "progress starts the spin over";
}

TEST(BackoffTest, SleepsDoubleUpToTheLimitThenGrowWithTheWait) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  const Backoff::Policy p{microseconds(50), microseconds(0), microseconds(200)};
  EXPECT_EQ(Backoff::NextSleep(microseconds(0), microseconds(0), p), microseconds(1));
  EXPECT_EQ(Backoff::NextSleep(microseconds(64), microseconds(500), p), microseconds(128));
  EXPECT_EQ(Backoff::NextSleep(microseconds(128), microseconds(900), p), microseconds(200)) << "capped";
  EXPECT_EQ(Backoff::NextSleep(microseconds(200), milliseconds(4), p), microseconds(400)) << "1/8 of 4 ms is 500 us";
  EXPECT_EQ(Backoff::NextSleep(microseconds(400), milliseconds(4), p), microseconds(500));
  EXPECT_EQ(Backoff::NextSleep(milliseconds(2), milliseconds(100), p), milliseconds(2)) << "at most 10x max_sleep";
}

TEST(BackoffTest, LargeMessagesSpinLongerUnlessCoresAreShared) {
  using std::chrono::microseconds;
  const Backoff::Policy base{microseconds(50), microseconds(0), microseconds(200)};
  EXPECT_EQ(Backoff::ForWait(base, 0, false).spin, microseconds(50));
  EXPECT_EQ(Backoff::ForWait(base, 1 << 20, false).spin, microseconds(50) + 1024 * Backoff::kSpinPerKiB);
  EXPECT_EQ(Backoff::ForWait(base, uint64_t{1} << 40, false).spin, microseconds(50) + Backoff::kMaxTransferSpin);
  EXPECT_EQ(Backoff::ForWait(base, 1 << 20, true).spin, Backoff::kSharedCoreSpin);
  EXPECT_EQ(Backoff::ForWait({microseconds(3), {}, {}}, 0, true).spin, microseconds(3)) << "never longer than asked";
}

TEST(RequestPoolTest, RecyclesAndKnowsItsOwn) {
  RequestPool pool;
  std::vector<Request*> held;
  for (int i = 0; i < 100; ++i) held.push_back(pool.Acquire());  // several blocks
  EXPECT_EQ(pool.in_use(), 100u);
  for (Request* r : held) EXPECT_TRUE(pool.InUse(r));
  Request outsider;
  EXPECT_FALSE(pool.InUse(&outsider));
  EXPECT_FALSE(pool.InUse(reinterpret_cast<const Request*>(0x1234)));
  EXPECT_FALSE(pool.InUse(reinterpret_cast<const Request*>(reinterpret_cast<const char*>(held[3]) + 8)))
      << "a pointer into a request is not a request";
  held[5]->tag = 77;
  held[5]->Complete(InvalidArgument("x"));
  Request* freed = held[5];
  pool.Free(freed);
  EXPECT_FALSE(pool.InUse(freed));
  Request* again = pool.Acquire();
  EXPECT_EQ(again, freed) << "the free list hands back the last freed request";
  EXPECT_EQ(again->tag, 0);
  EXPECT_FALSE(again->complete);
  EXPECT_TRUE(again->error.ok());
  int seen = 0;
  pool.ForEachInUse([&](Request&) { ++seen; });
  EXPECT_EQ(seen, 100);
}

}  // namespace
}  // namespace gpurun::p2p
