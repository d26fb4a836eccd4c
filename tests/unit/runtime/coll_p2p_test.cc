// The point-to-point collectives (coll_p2p.h) in in-process jobs: exact
// results for every root, in place and out of place, counts 0, blocks with
// gaps (which must stay poisoned), small (eager) and large (rendezvous)
// messages, 1..8 ranks; size mismatches and a dead rank fail naming the rank.
#include "runtime/coll_p2p.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "coll_job.h"
#include "runtime/coll_args.h"
#include "runtime/comm_coll.h"

namespace gpurun {
namespace {

using testing::JobOptions;
using testing::RunJob;

constexpr int32_t kPoison = -7;

// The element i that rank `src` sends rank `dst`.
int32_t Value(int src, int dst, size_t i) { return src * 1000000 + dst * 1000 + static_cast<int32_t>(i % 1000); }

Status Expect(bool ok, const std::string& what) { return ok ? OkStatus() : InternalError(what); }

// Checks `got[at + i] == want(i)` for i < count.
template <typename Want>
Status ExpectBlock(const std::vector<int32_t>& got, size_t at, size_t count, Want want, const std::string& what) {
  for (size_t i = 0; i < count; ++i) {
    if (got[at + i] != want(i)) {
      return InternalError(what + ": element " + std::to_string(at + i) + " is " + std::to_string(got[at + i]) +
                           ", expected " + std::to_string(want(i)));
    }
  }
  return OkStatus();
}

void ExpectAllOk(const std::vector<Status>& results, const std::string& what) {
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_TRUE(results[r].ok()) << what << ", rank " << r << ": " << results[r].ToString();
  }
}

const std::vector<size_t> kCounts = {0, 1, 7, 100};  // 100 int32 = 400 B: rendezvous on the fake network

Status AlltoallBody(Context& ctx, size_t count, bool in_place) {
  grComm& w = *ctx.world();
  const int n = w.size, me = w.rank;
  std::vector<int32_t> send(n * count), recv(n * count, kPoison);
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < count; ++i) send[j * count + i] = Value(me, j, i);
  if (in_place) recv = send;
  void* sb = in_place ? recv.data() : send.data();
  GR_ASSIGN_OR_RETURN(AlltoallvCall call, CheckAlltoall(w, sb, recv.data(), count, grInt32));
  GR_RETURN_IF_ERROR(Alltoallv(CollOf(w).link(), call, "grAlltoall"));
  for (int j = 0; j < n; ++j) {
    GR_RETURN_IF_ERROR(ExpectBlock(
        recv, j * count, count, [&](size_t i) { return Value(j, me, i); }, "alltoall block " + std::to_string(j)));
  }
  return OkStatus();
}

TEST(CollP2pTest, AlltoallExactInAndOutOfPlace) {
  for (int n : {1, 2, 3, 4, 5, 8}) {
    for (bool in_place : {false, true}) {
      ExpectAllOk(RunJob(n, {},
                         [&](Context& ctx, auto&) {
                           for (size_t count : kCounts) GR_RETURN_IF_ERROR(AlltoallBody(ctx, count, in_place));
                           return OkStatus();
                         }),
                  std::to_string(n) + " ranks, in place " + std::to_string(in_place));
    }
  }
}

// Block i → j has (i + 2 j + seed) % 5 elements; receive blocks are laid out
// in reverse rank order with a one-element gap after each.
struct VLayout {
  int n;
  int seed;
  size_t Count(int src, int dst) const { return static_cast<size_t>((src + 2 * dst + seed) % 5) * 30; }
  // Receive displacements of rank `me` (blocks from every source).
  std::vector<size_t> RecvDispls(int me, std::vector<size_t>* counts, size_t* extent) const {
    std::vector<size_t> displs(n);
    counts->assign(n, 0);
    size_t at = 0;
    for (int src = n - 1; src >= 0; --src) {
      (*counts)[src] = Count(src, me);
      displs[src] = at;
      at += (*counts)[src] + 1;
    }
    *extent = at;
    return displs;
  }
};

Status AlltoallvBody(Context& ctx, int seed, bool in_place) {
  grComm& w = *ctx.world();
  const int n = w.size, me = w.rank;
  const VLayout layout{n, seed};
  std::vector<size_t> rcounts, scounts(n), sdispls(n);
  size_t extent = 0, sat = 0;
  const std::vector<size_t> rdispls = layout.RecvDispls(me, &rcounts, &extent);
  for (int j = 0; j < n; ++j) {
    scounts[j] = layout.Count(me, j);
    sdispls[j] = sat;
    sat += scounts[j];
  }
  std::vector<int32_t> send(sat), recv(extent, kPoison);
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < scounts[j]; ++i) send[sdispls[j] + i] = Value(me, j, i);
  if (in_place) {
    // In place needs symmetric counts: use the receive layout for both.
    if (layout.Count(me, me) != rcounts[me]) return InternalError("layout");
    for (int j = 0; j < n; ++j)
      for (size_t i = 0; i < rcounts[j]; ++i) recv[rdispls[j] + i] = Value(me, j, i);
  }
  StatusOr<AlltoallvCall> call =
      in_place ? CheckAlltoallv(w, recv.data(), nullptr, nullptr, recv.data(), rcounts.data(), rdispls.data(), grInt32)
               : CheckAlltoallv(w, send.data(), scounts.data(), sdispls.data(), recv.data(), rcounts.data(),
                                rdispls.data(), grInt32);
  GR_RETURN_IF_ERROR(call.status());
  GR_RETURN_IF_ERROR(Alltoallv(CollOf(w).link(), *call, "grAlltoallv"));
  for (int j = 0; j < n; ++j) {
    GR_RETURN_IF_ERROR(ExpectBlock(
        recv, rdispls[j], rcounts[j], [&](size_t i) { return Value(j, me, i); },
        "alltoallv block " + std::to_string(j)));
    GR_RETURN_IF_ERROR(Expect(recv[rdispls[j] + rcounts[j]] == kPoison, "alltoallv wrote into a gap"));
  }
  return OkStatus();
}

TEST(CollP2pTest, AlltoallvExactWithGapsAndEmptyBlocks) {
  for (int n : {1, 2, 3, 4, 7}) {
    ExpectAllOk(RunJob(n, {},
                       [&](Context& ctx, auto&) {
                         for (int seed : {0, 3}) GR_RETURN_IF_ERROR(AlltoallvBody(ctx, seed, false));
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

TEST(CollP2pTest, AlltoallvInPlaceWithSymmetricCounts) {
  // In place, the block i → j must have the size of j → i: counts (i + j) % 3.
  for (int n : {2, 3, 5}) {
    ExpectAllOk(RunJob(n, {},
                       [&](Context& ctx, auto&) {
                         grComm& w = *ctx.world();
                         const int me = w.rank;
                         std::vector<size_t> counts(n), displs(n);
                         size_t at = 0;
                         for (int j = 0; j < n; ++j) {
                           counts[j] = static_cast<size_t>((me + j) % 3) * 40;
                           displs[j] = at;
                           at += counts[j] + 2;
                         }
                         std::vector<int32_t> buf(at, kPoison);
                         for (int j = 0; j < n; ++j)
                           for (size_t i = 0; i < counts[j]; ++i) buf[displs[j] + i] = Value(me, j, i);
                         GR_ASSIGN_OR_RETURN(AlltoallvCall call,
                                             CheckAlltoallv(w, buf.data(), nullptr, nullptr, buf.data(), counts.data(),
                                                            displs.data(), grInt32));
                         GR_RETURN_IF_ERROR(Alltoallv(CollOf(w).link(), call, "grAlltoallv"));
                         for (int j = 0; j < n; ++j) {
                           GR_RETURN_IF_ERROR(ExpectBlock(
                               buf, displs[j], counts[j], [&](size_t i) { return Value(j, me, i); }, "block"));
                           GR_RETURN_IF_ERROR(Expect(buf[displs[j] + counts[j]] == kPoison, "gap written"));
                         }
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

Status GatherBody(Context& ctx, size_t count, int root, bool in_place, bool v) {
  grComm& w = *ctx.world();
  const int n = w.size, me = w.rank;
  // v: rank r sends count + r elements, blocks in reverse order with gaps.
  std::vector<size_t> counts(n), displs(n);
  size_t at = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = v ? count + r : count;
    displs[r] = v ? at : r * count;
    at += counts[r] + (v ? 1 : 0);
  }
  const size_t extent = v ? at : n * count;
  std::vector<int32_t> recv(me == root ? extent : 0, kPoison), send(counts[me]);
  for (size_t i = 0; i < counts[me]; ++i) send[i] = Value(me, root, i);
  const int32_t* sb = send.data();
  if (in_place && me == root) {
    std::copy(send.begin(), send.end(), recv.begin() + displs[me]);
    sb = recv.data() + displs[me];
  }
  int32_t* rb = me == root ? recv.data() : nullptr;
  StatusOr<GathervCall> call = v ? CheckGatherv(w, sb, counts[me], rb, counts.data(), displs.data(), grInt32, root)
                                 : CheckGather(w, sb, rb, count, grInt32, root);
  GR_RETURN_IF_ERROR(call.status());
  GR_RETURN_IF_ERROR(Gatherv(CollOf(w).link(), *call, v ? "grGatherv" : "grGather"));
  if (me != root) return OkStatus();
  for (int r = 0; r < n; ++r) {
    GR_RETURN_IF_ERROR(ExpectBlock(
        recv, displs[r], counts[r], [&](size_t i) { return Value(r, root, i); }, "gather block " + std::to_string(r)));
    if (v) GR_RETURN_IF_ERROR(Expect(recv[displs[r] + counts[r]] == kPoison, "gatherv wrote into a gap"));
  }
  return OkStatus();
}

Status ScatterBody(Context& ctx, size_t count, int root, bool in_place, bool v) {
  grComm& w = *ctx.world();
  const int n = w.size, me = w.rank;
  std::vector<size_t> counts(n), displs(n);
  size_t at = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = v ? count + 2 * r : count;
    displs[r] = v ? at : r * count;
    at += counts[r] + (v ? 3 : 0);
  }
  std::vector<int32_t> send(me == root ? at : 0, kPoison), recv(counts[me], kPoison);
  if (me == root) {
    for (int r = 0; r < n; ++r)
      for (size_t i = 0; i < counts[r]; ++i) send[displs[r] + i] = Value(root, r, i);
  }
  int32_t* rb = recv.data();
  if (in_place && me == root) rb = send.data() + displs[me];
  const int32_t* sb = me == root ? send.data() : nullptr;
  StatusOr<ScattervCall> call = v ? CheckScatterv(w, sb, counts.data(), displs.data(), rb, counts[me], grInt32, root)
                                  : CheckScatter(w, sb, rb, count, grInt32, root);
  GR_RETURN_IF_ERROR(call.status());
  GR_RETURN_IF_ERROR(Scatterv(CollOf(w).link(), *call, v ? "grScatterv" : "grScatter"));
  if (in_place && me == root) {
    recv.assign(rb, rb + counts[me]);
  }
  return ExpectBlock(
      recv, 0, counts[me], [&](size_t i) { return Value(root, me, i); }, "scatter to rank " + std::to_string(me));
}

TEST(CollP2pTest, GatherAndScatterEveryRootInAndOutOfPlace) {
  for (int n : {1, 2, 3, 4, 6}) {
    ExpectAllOk(RunJob(n, {},
                       [&](Context& ctx, auto&) {
                         for (bool v : {false, true})
                           for (bool in_place : {false, true})
                             for (size_t count : kCounts)
                               for (int root = 0; root < n; ++root) {
                                 GR_RETURN_IF_ERROR(GatherBody(ctx, count, root, in_place, v));
                                 GR_RETURN_IF_ERROR(ScatterBody(ctx, count, root, in_place, v));
                               }
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

Status AllgathervBody(Context& ctx, size_t count, bool in_place, bool v) {
  grComm& w = *ctx.world();
  const int n = w.size, me = w.rank;
  std::vector<size_t> counts(n), displs(n);
  size_t at = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = v ? (count + r) % 101 : count;
    displs[r] = at;
    at += counts[r] + (v ? 1 : 0);
  }
  std::vector<int32_t> recv(at, kPoison), send(counts[me]);
  for (size_t i = 0; i < counts[me]; ++i) send[i] = Value(me, 0, i);
  const int32_t* sb = send.data();
  if (in_place) {
    std::copy(send.begin(), send.end(), recv.begin() + displs[me]);
    sb = recv.data() + displs[me];
  }
  GR_ASSIGN_OR_RETURN(AllgathervCall call,
                      CheckAllgatherv(w, sb, counts[me], recv.data(), counts.data(), displs.data(), grInt32));
  GR_RETURN_IF_ERROR(Allgatherv(CollOf(w).link(), call, "grAllgatherv"));
  for (int r = 0; r < n; ++r) {
    GR_RETURN_IF_ERROR(ExpectBlock(
        recv, displs[r], counts[r], [&](size_t i) { return Value(r, 0, i); }, "allgatherv block " + std::to_string(r)));
    if (v) GR_RETURN_IF_ERROR(Expect(recv[displs[r] + counts[r]] == kPoison, "allgatherv wrote into a gap"));
  }
  return OkStatus();
}

TEST(CollP2pTest, AllgathervExact) {
  for (int n : {1, 2, 3, 4, 8}) {
    ExpectAllOk(RunJob(n, {},
                       [&](Context& ctx, auto&) {
                         for (bool v : {false, true})
                           for (bool in_place : {false, true})
                             for (size_t count : kCounts) GR_RETURN_IF_ERROR(AllgathervBody(ctx, count, in_place, v));
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

TEST(CollP2pTest, DisseminationBarrierHoldsEveryRankUntilAllEntered) {
  for (int n : {1, 2, 3, 5, 8}) {
    std::atomic<int> entered{0};
    ExpectAllOk(RunJob(n, {},
                       [&](Context& ctx, auto&) {
                         for (int round = 1; round <= 20; ++round) {
                           entered.fetch_add(1);
                           GR_RETURN_IF_ERROR(DisseminationBarrier(CollOf(*ctx.world()).link(), "grBarrier"));
                           GR_RETURN_IF_ERROR(Expect(entered.load() >= round * n, "left the barrier early"));
                           // A second barrier keeps the next round's increments after every check.
                           GR_RETURN_IF_ERROR(DisseminationBarrier(CollOf(*ctx.world()).link(), "grBarrier"));
                         }
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

TEST(CollP2pTest, RealWiresBetweenThreads) {
  JobOptions options;
  options.real_wires = true;
  ExpectAllOk(RunJob(4, options,
                     [&](Context& ctx, auto&) {
                       GR_RETURN_IF_ERROR(AlltoallBody(ctx, 100000, false));  // 400 KB blocks
                       GR_RETURN_IF_ERROR(AlltoallBody(ctx, 3, true));
                       GR_RETURN_IF_ERROR(GatherBody(ctx, 70000, 2, true, true));
                       GR_RETURN_IF_ERROR(ScatterBody(ctx, 5, 3, false, true));
                       return AllgathervBody(ctx, 50000, false, true);
                     }),
              "real wires");
}

TEST(CollP2pTest, CountMismatchIsInvalidUsageNamingTheSender) {
  const auto results = RunJob(3, {}, [&](Context& ctx, auto&) -> Status {
    grComm& w = *ctx.world();
    // Rank 2 sends 5 elements where the root expects 4.
    std::vector<int32_t> send(5, 1), recv(12);
    const size_t counts[3] = {4, 4, 4}, displs[3] = {0, 4, 8};
    const size_t mine = w.rank == 2 ? 5 : 4;
    GR_ASSIGN_OR_RETURN(GathervCall call, CheckGatherv(w, send.data(), mine, recv.data(), counts, displs, grInt32, 0));
    return Gatherv(CollOf(w).link(), call, "grGatherv");
  });
  EXPECT_TRUE(results[1].ok());
  EXPECT_TRUE(results[2].ok()) << results[2].ToString();  // its send went out whole
  ASSERT_EQ(results[0].code(), grInvalidUsage) << results[0].ToString();
  EXPECT_NE(results[0].message().find("rank 2 (host"), std::string::npos) << results[0].message();
  EXPECT_NE(results[0].message().find("counts or types differ"), std::string::npos);
}

TEST(CollP2pTest, ShortMessageIsInvalidUsage) {
  const auto results = RunJob(2, {}, [&](Context& ctx, auto&) -> Status {
    grComm& w = *ctx.world();
    std::vector<int32_t> buf(8, 1);
    // Rank 0 is the root and sends 2 elements to rank 1, which expects 3.
    const size_t counts[2] = {3, 2}, displs[2] = {0, 3};
    GR_ASSIGN_OR_RETURN(ScattervCall call, CheckScatterv(w, buf.data(), counts, displs, buf.data() + 5, 3, grInt32, 0));
    return Scatterv(CollOf(w).link(), call, "grScatterv");
  });
  EXPECT_TRUE(results[0].ok());
  ASSERT_EQ(results[1].code(), grInvalidUsage) << results[1].ToString();
  EXPECT_NE(results[1].message().find("grScatterv: rank 0 (host"), std::string::npos) << results[1].message();
  EXPECT_NE(results[1].message().find("sent 8 bytes where 12 were expected"), std::string::npos);
}

// Two ranks take the blocking send/receive path (no step window): a long
// message there is the same grInvalidUsage naming the sender.
TEST(CollP2pTest, TwoRankLongMessagesAreInvalidUsageNamingTheSender) {
  const auto results = RunJob(2, {}, [&](Context& ctx, auto&) -> Status {
    grComm& w = *ctx.world();
    const size_t three[2] = {3, 3}, two[2] = {2, 2}, displs[2] = {0, 4};
    std::vector<int32_t> send(8, w.rank), recv(8, kPoison);
    // Gatherv to root 0, which expects 2 elements of rank 1; rank 1 sends 3.
    GR_ASSIGN_OR_RETURN(GathervCall g,
                        CheckGatherv(w, send.data(), w.rank == 0 ? 2 : 3, recv.data(), two, displs, grInt32, 0));
    const Status gathered = Gatherv(CollOf(w).link(), g, "grGatherv");
    // Scatterv from root 1, which sends 3 elements to rank 0; rank 0 expects 2.
    GR_ASSIGN_OR_RETURN(ScattervCall sc,
                        CheckScatterv(w, send.data(), three, displs, recv.data(), w.rank == 0 ? 2 : 3, grInt32, 1));
    const Status scattered = Scatterv(CollOf(w).link(), sc, "grScatterv");
    // Alltoallv: rank 1 sends 3 elements to rank 0, which expects 2.
    const size_t sendcounts[2] = {w.rank == 0 ? 2u : 3u, 2}, recvcounts[2] = {2, 2};
    GR_ASSIGN_OR_RETURN(AlltoallvCall a,
                        CheckAlltoallv(w, send.data(), sendcounts, displs, recv.data(), recvcounts, displs, grInt32));
    const Status exchanged = Alltoallv(CollOf(w).link(), a, "grAlltoallv");
    if (w.rank == 1) {
      GR_RETURN_IF_ERROR(gathered);
      GR_RETURN_IF_ERROR(scattered);
      return exchanged;
    }
    const std::pair<Status, const char*> checks[] = {
        {gathered, "grGatherv"}, {scattered, "grScatterv"}, {exchanged, "grAlltoallv"}};
    for (const auto& [s, what] : checks) {
      GR_RETURN_IF_ERROR(Expect(s.code() == grInvalidUsage, std::string(what) + " gave " + s.ToString()));
      const std::string want = std::string(what) + ": rank 1 (host";
      GR_RETURN_IF_ERROR(Expect(s.message().find(want) != std::string::npos, s.message()));
      GR_RETURN_IF_ERROR(Expect(s.message().find("more than the 8 bytes expected") != std::string::npos, s.message()));
    }
    return OkStatus();
  });
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_TRUE(results[1].ok()) << results[1].ToString();  // its sends went out whole
}

// A blocking receive of a 2-rank gather (at the root) and scatter (off the
// root) ends when its peer dies, naming it.
TEST(CollP2pTest, TwoRankDeadPeerFailsTheBlockingReceives) {
  const auto results = RunJob(2, {}, [&](Context& ctx, p2p::testing::FakeNetwork& net) -> Status {
    grComm& w = *ctx.world();
    if (w.rank == 1) {
      net.Kill(1, RemoteError("rank 1 (pid 4242 on nodeA) died"));
      return OkStatus();
    }
    std::vector<int32_t> send(3, 0), recv(6);
    GR_ASSIGN_OR_RETURN(GathervCall g, CheckGather(w, send.data(), recv.data(), 3, grInt32, 0));
    const Status gathered = Gatherv(CollOf(w).link(), g, "grGather");
    GR_ASSIGN_OR_RETURN(ScattervCall sc, CheckScatter(w, nullptr, recv.data(), 3, grInt32, 1));
    const Status scattered = Scatterv(CollOf(w).link(), sc, "grScatter");
    for (const Status& s : {gathered, scattered}) {
      GR_RETURN_IF_ERROR(Expect(s.code() == grRemoteError, "gave " + s.ToString()));
      GR_RETURN_IF_ERROR(Expect(s.message().find("died") != std::string::npos, s.message()));
      GR_RETURN_IF_ERROR(Expect(s.message().find("rank 1") != std::string::npos, s.message()));
    }
    return OkStatus();
  });
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_TRUE(results[1].ok());
}

TEST(CollP2pTest, DeadRankFailsTheGatherNamingIt) {
  const auto results = RunJob(4, {}, [&](Context& ctx, p2p::testing::FakeNetwork& net) -> Status {
    grComm& w = *ctx.world();
    if (w.rank == 2) {
      net.Kill(2, RemoteError("rank 2 (pid 4242 on nodeA) died"));
      return OkStatus();
    }
    // Each live rank is the root once and every gather needs rank 2. The
    // live ranks go on after an error (a root finishes its other receives).
    Status as_root;
    for (int root : {0, 1, 3}) {
      std::vector<int32_t> send(3, w.rank), recv(12);
      GR_ASSIGN_OR_RETURN(GathervCall call, CheckGather(w, send.data(), recv.data(), 3, grInt32, root));
      Status s = Gatherv(CollOf(w).link(), call, "grGather");
      if (root == w.rank) as_root = s;
      if (root != w.rank) GR_RETURN_IF_ERROR(s);
    }
    return as_root;
  });
  EXPECT_TRUE(results[2].ok());
  for (int r : {0, 1, 3}) {
    ASSERT_EQ(results[r].code(), grRemoteError) << "rank " << r << ": " << results[r].ToString();
    EXPECT_NE(results[r].message().find("rank 2"), std::string::npos) << results[r].message();
    EXPECT_NE(results[r].message().find("died"), std::string::npos) << results[r].message();
  }
}

}  // namespace
}  // namespace gpurun
