// Communicator split/dup/free over Contexts of an in-process job (one thread
// per rank, InprocBootstrap) whose engines use a FakeNetwork; plus the pure
// split computation and Finalize's cancellation warning.
#include "runtime/comm_split.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "fake_network.h"
#include "p2p/request.h"
#include "runtime/base/params.h"
#include "runtime/bootstrap/inproc_bootstrap.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace {

TEST(ComputeSplitTest, OrdersByKeyThenParentRankAndAgreesOnTheLargestProposal) {
  const std::vector<SplitEntry> table = {{0, 5, 2}, {1, 0, 6}, {0, 1, 4}, {GR_UNDEFINED, 0, 2}, {0, 1, 2}};
  auto r0 = ComputeSplit(table, 0);
  ASSERT_TRUE(r0.ok());
  EXPECT_EQ(r0->context_id, 6u);
  EXPECT_EQ(r0->members, std::vector<int>({2, 4, 0}));  // keys 1, 1, 5; ties by parent rank
  EXPECT_EQ(r0->rank, 2);
  auto r1 = ComputeSplit(table, 1);
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->members, std::vector<int>({1}));
  EXPECT_EQ(r1->context_id, 6u);
  auto r3 = ComputeSplit(table, 3);
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->rank, -1);
  EXPECT_TRUE(r3->members.empty());
}

TEST(ComputeSplitTest, RunningOutOfContextsIsAClearError) {
  const std::vector<SplitEntry> table = {{0, 0, p2p::kMaxContext}, {0, 0, 2}};
  auto r = ComputeSplit(table, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), grInvalidUsage);
  EXPECT_NE(r.status().message().find("16-bit context space"), std::string::npos);
}

// Runs `body(ctx)` on `n` ranks (threads, two per fake node) with engines over
// a FakeNetwork, or with `real_wires` over the real shm and ucx wires (which
// also work between threads of one process); returns each rank's first failure.
std::vector<Status> RunJob(int n, const std::function<Status(Context&)>& body, bool real_wires = false) {
  auto group = InprocGroup::Create(n, {.ranks_per_node = 2, .timeout_s = 30.0});
  EXPECT_TRUE(group.ok());
  auto boots = group->TakeAll();
  auto net = std::make_shared<p2p::testing::FakeNetwork>(n, p2p::testing::FakeOptions{.eager_limit = 16});
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto ctx = Context::CreateWith(std::move(boots[r]), real_wires ? nullptr : p2p::testing::FakeEngineFactory(net));
      if (!ctx.ok()) {
        results[r] = ctx.status();
        return;
      }
      results[r] = body(**ctx);
      const Status fin = (*ctx)->Finalize();
      if (results[r].ok()) results[r] = fin;
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

Status SendInt(Context& ctx, const grComm& comm, int dest, int tag, const int& value) {
  GR_ASSIGN_OR_RETURN(p2p::SendArgs args, MakeSendArgs(comm, &value, 1, grInt32, dest, tag, "grSend"));
  GR_ASSIGN_OR_RETURN(p2p::Request * r, ctx.engine().Isend(args));
  return ctx.engine().Wait(r, nullptr);
}

StatusOr<int> RecvInt(Context& ctx, const grComm& comm, int source, int tag) {
  int value = -1;
  GR_ASSIGN_OR_RETURN(p2p::RecvArgs args, MakeRecvArgs(comm, &value, 1, grInt32, source, tag, "grRecv"));
  GR_ASSIGN_OR_RETURN(p2p::Request * r, ctx.engine().Irecv(args));
  GR_RETURN_IF_ERROR(ctx.engine().Wait(r, nullptr));
  return value;
}

Status Expect(bool ok, const std::string& what) { return ok ? OkStatus() : InternalError(what); }

// Split by parity with reversed keys; a ring on each half; the halves' contexts agree.
Status SplitRing(Context& ctx) {
  grComm& world = *ctx.world();
  GR_ASSIGN_OR_RETURN(grComm * half, SplitComm(ctx, world, world.rank % 2, -world.rank));
  const int n = world.size, half_size = (n + 1 - world.rank % 2) / 2;
  GR_RETURN_IF_ERROR(Expect(half != nullptr && half->size == half_size, "half size"));
  // Reversed keys: the highest world rank of each parity is rank 0.
  GR_RETURN_IF_ERROR(Expect(half->rank == (half_size - 1) - world.rank / 2, "half rank"));
  GR_RETURN_IF_ERROR(Expect(half->context_id >= 2 && half->internal_context_id == half->context_id + 1, "ids"));
  const int next = (half->rank + 1) % half->size, prev = (half->rank + half->size - 1) % half->size;
  const int token = world.rank;
  GR_ASSIGN_OR_RETURN(p2p::Request * sent,
                      ctx.engine().Isend(*MakeSendArgs(*half, &token, 1, grInt32, next, 3, "grIsend")));
  GR_ASSIGN_OR_RETURN(int got, RecvInt(ctx, *half, prev, 3));
  GR_RETURN_IF_ERROR(ctx.engine().Wait(sent, nullptr));
  GR_RETURN_IF_ERROR(Expect(got == half->world_ranks[prev], "ring token from the wrong rank"));
  // Agree that both halves' members hold the same context id: a world exchange.
  const int id = static_cast<int>(half->context_id);
  GR_RETURN_IF_ERROR(SendInt(ctx, world, (world.rank + 2) % n, 4, id));
  GR_ASSIGN_OR_RETURN(int peer_id, RecvInt(ctx, world, (world.rank + n - 2) % n, 4));
  GR_RETURN_IF_ERROR(Expect(peer_id == id, "members of one half disagree on the context id"));
  return ctx.FreeComm(half);
}

TEST(CommSplitTest, SplitByParityRunsARingOnEachHalf) {
  for (int n : {1, 2, 5, 6}) {
    const auto results = RunJob(n, SplitRing);
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(results[r].ok()) << n << " ranks, rank " << r << ": " << results[r].ToString();
  }
}

// Dup: same ranks, separate matching; GR_UNDEFINED; free rules.
Status DupAndFree(Context& ctx) {
  grComm& world = *ctx.world();
  GR_ASSIGN_OR_RETURN(grComm * dup, DupComm(ctx, world));
  GR_RETURN_IF_ERROR(Expect(dup->rank == world.rank && dup->size == world.size, "dup shape"));
  const int n = world.size, right = (world.rank + 1) % n, left = (world.rank + n - 1) % n;
  // Same tag on world then dup: receiving on dup first must get the dup message.
  GR_RETURN_IF_ERROR(SendInt(ctx, world, right, 0, 100));
  GR_RETURN_IF_ERROR(SendInt(ctx, *dup, right, 0, 200));
  GR_ASSIGN_OR_RETURN(int on_dup, RecvInt(ctx, *dup, left, 0));
  GR_ASSIGN_OR_RETURN(int on_world, RecvInt(ctx, world, left, 0));
  GR_RETURN_IF_ERROR(Expect(on_dup == 200 && on_world == 100, "dup and world messages mixed"));
  // Only rank 0 joins; the others get null.
  GR_ASSIGN_OR_RETURN(grComm * solo, SplitComm(ctx, world, world.rank == 0 ? 7 : GR_UNDEFINED, 0));
  GR_RETURN_IF_ERROR(Expect((solo != nullptr) == (world.rank == 0), "GR_UNDEFINED"));
  if (solo != nullptr) GR_RETURN_IF_ERROR(Expect(solo->size == 1 && solo->context_id > dup->context_id, "solo"));
  GR_RETURN_IF_ERROR(Expect(ctx.FreeComm(&world).code() == grInvalidUsage, "world freed"));
  int buf = 0;
  GR_ASSIGN_OR_RETURN(p2p::Request * pending,
                      ctx.engine().Irecv(*MakeRecvArgs(*dup, &buf, 1, grInt32, left, 9, "grIrecv")));
  GR_RETURN_IF_ERROR(Expect(ctx.FreeComm(dup).code() == grInvalidUsage, "freed with a pending receive"));
  GR_RETURN_IF_ERROR(SendInt(ctx, *dup, right, 9, 1));
  GR_RETURN_IF_ERROR(ctx.engine().Wait(pending, nullptr));
  GR_RETURN_IF_ERROR(ctx.FreeComm(dup));
  GR_RETURN_IF_ERROR(Expect(!ctx.IsLive(dup), "freed comm still live"));
  GR_RETURN_IF_ERROR(Expect(ctx.FreeComm(dup).code() == grInvalidArgument, "double free"));
  if (solo != nullptr) GR_RETURN_IF_ERROR(ctx.FreeComm(solo));
  return OkStatus();
}

TEST(CommSplitTest, DupSeparatesMatchingAndFreeChecksPendingWork) {
  for (int n : {1, 3, 4}) {
    const auto results = RunJob(n, DupAndFree);
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(results[r].ok()) << n << " ranks, rank " << r << ": " << results[r].ToString();
  }
}

// The same two jobs over the real wires: shm within a fake node, ucx across.
TEST(CommSplitTest, RealWiresSplitAndDup) {
  for (int n : {2, 5}) {
    auto results = RunJob(
        n,
        [](Context& ctx) {
          const int me = ctx.world()->rank;
          for (int p = 0; p < ctx.world()->size; ++p) {
            const std::string want = p == me ? "self" : p / 2 == me / 2 ? "shm" : "ucx";
            GR_RETURN_IF_ERROR(Expect(ctx.engine().WireFor(p) == want, "rank " + std::to_string(p) + " over " +
                                                                           ctx.engine().WireFor(p) + ", not " + want));
          }
          return OkStatus();
        },
        /*real_wires=*/true);
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(results[r].ok()) << n << " ranks, rank " << r << ": " << results[r].ToString();
    results = RunJob(n, SplitRing, /*real_wires=*/true);
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(results[r].ok()) << n << " ranks, rank " << r << ": " << results[r].ToString();
    results = RunJob(n, DupAndFree, /*real_wires=*/true);
    for (int r = 0; r < n; ++r)
      EXPECT_TRUE(results[r].ok()) << n << " ranks, rank " << r << ": " << results[r].ToString();
  }
}

TEST(ContextFinalizeTest, CancelsPendingRequestsWithAWarning) {
  ::testing::internal::CaptureStderr();
  const auto results = RunJob(1, [](Context& ctx) -> Status {
    static int buf;
    GR_ASSIGN_OR_RETURN(auto args, MakeRecvArgs(*ctx.world(), &buf, 1, grInt32, 0, 5, "grIrecv"));
    return ctx.engine().Irecv(args).status();
  });
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_NE(err.find("cancelled 1 pending point-to-point request"), std::string::npos) << err;
}

}  // namespace
}  // namespace gpurun
