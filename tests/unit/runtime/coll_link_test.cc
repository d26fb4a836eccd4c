// RuntimeLink (coll_link.h) and a communicator's collective state
// (comm_coll.h) in in-process jobs: peer queries, the setup all-gather,
// point-to-point with size checks, peer failure, and the ring/tree calls
// reaching the communicator's HostColl — here a test double that computes
// each collective from an all-gather of every rank's input — which is made
// once per communicator and destroyed with it.
#include "runtime/coll_link.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "coll_job.h"
#include "runtime/coll_args.h"
#include "runtime/comm_coll.h"
#include "runtime/comm_split.h"

namespace gpurun {
namespace {

using testing::JobOptions;
using testing::RunJob;

Status Expect(bool ok, const std::string& what) { return ok ? OkStatus() : InternalError(what); }

void ExpectAllOk(const std::vector<Status>& results, const std::string& what) {
  for (size_t r = 0; r < results.size(); ++r) {
    EXPECT_TRUE(results[r].ok()) << what << ", rank " << r << ": " << results[r].ToString();
  }
}

TEST(RuntimeLinkTest, PeerQueriesFollowThePeerTable) {
  // 5 ranks, 2 per node: nodes {0, 1}, {2, 3}, {4}.
  JobOptions options;
  options.ranks_per_node = 2;
  ExpectAllOk(
      RunJob(5, options,
             [](Context& ctx, auto&) -> Status {
               grComm& w = *ctx.world();
               RuntimeLink& link = CollOf(w).link();
               GR_RETURN_IF_ERROR(Expect(link.rank() == w.rank && link.size() == 5, "rank/size"));
               for (int p = 0; p < 5; ++p) {
                 GR_RETURN_IF_ERROR(Expect(link.SameHost(p) == (p / 2 == w.rank / 2), "SameHost"));
               }
               GR_RETURN_IF_ERROR(Expect(link.LocalSize() == (w.rank == 4 ? 1 : 2), "LocalSize"));
               const std::string d = link.DescribePeer(3);
               GR_RETURN_IF_ERROR(Expect(d.starts_with("rank 3 (host ") && d.find(", pid ") != std::string::npos,
                                         "DescribePeer: " + d));
               // A split communicator also names the world rank.
               GR_ASSIGN_OR_RETURN(grComm * half, SplitComm(ctx, w, w.rank % 2, w.rank));
               RuntimeLink& hl = CollOf(*half).link();
               const std::string hd = hl.DescribePeer(1);
               const std::string world1 = "world rank " + std::to_string(w.rank % 2 + 2);
               GR_RETURN_IF_ERROR(Expect(hd.find(world1) != std::string::npos, "split DescribePeer: " + hd));
               GR_RETURN_IF_ERROR(Expect(hl.UniqueName() != link.UniqueName(), "names differ per comm"));
               // The two halves share a context id but not a name.
               char mine[128] = {};
               const std::string hn = hl.UniqueName();
               std::memcpy(mine, hn.data(), std::min(hn.size(), sizeof mine - 1));
               std::vector<char> names(5 * sizeof mine);
               GR_RETURN_IF_ERROR(link.AllGather(mine, sizeof mine, names.data()));
               for (int r = 0; r < 5; ++r) {
                 const bool same_half = r % 2 == w.rank % 2;
                 GR_RETURN_IF_ERROR(Expect((std::string(&names[r * sizeof mine]) == hn) == same_half,
                                           "split names: " + std::string(&names[r * sizeof mine]) + " vs " + hn));
               }
               return ctx.FreeComm(half);
             }),
      "peer queries");
}

TEST(RuntimeLinkTest, AllGatherAndUniqueNameAgree) {
  for (int n : {1, 3, 4}) {
    ExpectAllOk(RunJob(n, {},
                       [n](Context& ctx, auto&) -> Status {
                         RuntimeLink& link = CollOf(*ctx.world()).link();
                         const int me = link.rank();
                         const int32_t mine[3] = {me, 10 * me, 100 * me};
                         std::vector<int32_t> all(3 * n, -1);
                         GR_RETURN_IF_ERROR(link.AllGather(mine, sizeof mine, all.data()));
                         for (int r = 0; r < n; ++r) {
                           GR_RETURN_IF_ERROR(Expect(
                               all[3 * r] == r && all[3 * r + 1] == 10 * r && all[3 * r + 2] == 100 * r, "AllGather"));
                         }
                         // In place (mine inside all), and the names: fixed-size, so all-gather them.
                         std::vector<int32_t> again(3 * n, -1);
                         std::memcpy(&again[3 * me], mine, sizeof mine);
                         GR_RETURN_IF_ERROR(link.AllGather(&again[3 * me], sizeof mine, again.data()));
                         GR_RETURN_IF_ERROR(Expect(again == all, "in-place AllGather"));
                         char name[128] = {};
                         const std::string un = link.UniqueName();
                         GR_RETURN_IF_ERROR(Expect(un.size() < sizeof name && un.ends_with("-" + std::string(20, '0')),
                                                   "UniqueName " + un));
                         std::memcpy(name, un.data(), un.size());
                         std::vector<char> names(sizeof name * n);
                         GR_RETURN_IF_ERROR(link.AllGather(name, sizeof name, names.data()));
                         for (int r = 0; r < n; ++r) {
                           GR_RETURN_IF_ERROR(Expect(std::string(&names[r * sizeof name]) == un, "UniqueName differs"));
                         }
                         return OkStatus();
                       }),
                std::to_string(n) + " ranks");
  }
}

TEST(RuntimeLinkTest, PointToPointSizesTagsAndTest) {
  ExpectAllOk(RunJob(2, {},
                     [](Context& ctx, auto&) -> Status {
                       RuntimeLink& link = CollOf(*ctx.world()).link();
                       const int me = link.rank(), peer = 1 - me;
                       // Tags below kCollTagBase are not the collectives'.
                       auto bad = link.Isend(peer, coll::kCollTagBase - 1, nullptr, 0);
                       GR_RETURN_IF_ERROR(Expect(!bad.ok() && bad.status().code() == grInternalError &&
                                                     bad.status().message().find("tag 15") != std::string::npos,
                                                 "low tag accepted"));
                       // Test polls without blocking until the message is there.
                       int64_t in = 0, out = 40 + me;
                       GR_ASSIGN_OR_RETURN(coll::LinkRequest * r, link.Irecv(peer, 100, &in, sizeof in));
                       GR_ASSIGN_OR_RETURN(coll::LinkRequest * s, link.Isend(peer, 100, &out, sizeof out));
                       bool done = false;
                       for (int i = 0; i < 1000000 && !done; ++i) GR_RETURN_IF_ERROR(link.Test(&r, &done));
                       GR_RETURN_IF_ERROR(Expect(done && r == nullptr && in == 40 + peer, "Test"));
                       coll::LinkRequest* list[2] = {s, nullptr};
                       GR_RETURN_IF_ERROR(link.WaitAll(list, "send"));
                       GR_RETURN_IF_ERROR(Expect(list[0] == nullptr, "WaitAll nulls"));
                       // A short message is the executor's bug: InternalError naming the sender.
                       int32_t small = 1;
                       GR_ASSIGN_OR_RETURN(coll::LinkRequest * r2, link.Irecv(peer, 101, &in, sizeof in));
                       GR_ASSIGN_OR_RETURN(coll::LinkRequest * s2, link.Isend(peer, 101, &small, sizeof small));
                       coll::LinkRequest* both[2] = {r2, s2};
                       const Status mismatch = link.WaitAll(both, "exchange");
                       GR_RETURN_IF_ERROR(Expect(both[0] == nullptr && both[1] == nullptr, "WaitAll frees on error"));
                       return Expect(
                           mismatch.code() == grInternalError &&
                               mismatch.message().find("exchange: rank " + std::to_string(peer) + " (host") == 0 &&
                               mismatch.message().find("sent 4 bytes where 8 were expected") != std::string::npos,
                           "mismatch: " + mismatch.ToString());
                     }),
              "p2p");
}

TEST(RuntimeLinkTest, CheckPeerReportsADeadPeerByName) {
  const auto results = RunJob(3, {}, [](Context& ctx, p2p::testing::FakeNetwork& net) -> Status {
    RuntimeLink& link = CollOf(*ctx.world()).link();
    GR_RETURN_IF_ERROR(link.CheckPeer((link.rank() + 1) % 3));
    GR_RETURN_IF_ERROR(ctx.bootstrap().Barrier());
    if (link.rank() == 1) net.Kill(1, RemoteError("rank 1 (pid 77 on fake) died"));
    GR_RETURN_IF_ERROR(ctx.bootstrap().Barrier());
    if (link.rank() == 1) return OkStatus();
    Status s;
    for (int i = 0; i < 1000 && s.ok(); ++i) s = link.CheckPeer(1);
    GR_RETURN_IF_ERROR(Expect(s.code() == grRemoteError, "no failure seen: " + s.ToString()));
    GR_RETURN_IF_ERROR(Expect(s.message().starts_with("rank 1 (host ") && s.message().find("died") != std::string::npos,
                              "message: " + s.message()));
    return link.CheckPeer(link.rank() == 0 ? 2 : 0);  // the others are fine
  });
  ExpectAllOk(results, "CheckPeer");
}

// The test double of coll::HostColl: every collective from an all-gather of
// the inputs over the link, for int32 only. Counts live instances.
class ReferenceHostColl final : public coll::HostColl {
 public:
  ReferenceHostColl(coll::CommLink& link, std::atomic<int>* live) : link_(link), live_(live) { ++*live_; }
  ~ReferenceHostColl() override { --*live_; }

  Status Run(const coll::CollCall& call) override {
    if (call.type != coll::DataType::kInt32) return Unsupported("the reference HostColl does int32 only");
    const int n = link_.size(), me = link_.rank();
    const size_t count = call.count;
    const auto* send = static_cast<const int32_t*>(call.send);
    auto* recv = static_cast<int32_t*>(call.recv);
    switch (call.func) {
      case coll::Func::kAllGather: return link_.AllGather(send, count * 4, recv);
      case coll::Func::kBroadcast: {
        std::vector<int32_t> all(n * count);
        GR_RETURN_IF_ERROR(link_.AllGather(me == call.root ? send : recv, count * 4, all.data()));
        std::copy_n(&all[call.root * count], count, recv);
        return OkStatus();
      }
      case coll::Func::kAllReduce:
      case coll::Func::kReduce: {
        std::vector<int32_t> all(n * count);
        GR_RETURN_IF_ERROR(link_.AllGather(send, count * 4, all.data()));
        if (call.func == coll::Func::kAllReduce || me == call.root) Reduce(all, count, 0, call.op, recv);
        return OkStatus();
      }
      case coll::Func::kReduceScatter: {
        std::vector<int32_t> all(n * n * count);
        GR_RETURN_IF_ERROR(link_.AllGather(send, n * count * 4, all.data()));
        std::vector<int32_t> mine(count);
        // Rank r's block `me` is at all[(r * n + me) * count].
        std::vector<int32_t> blocks(n * count);
        for (int r = 0; r < n; ++r) std::copy_n(&all[(r * n + me) * count], count, &blocks[r * count]);
        Reduce(blocks, count, 0, call.op, recv);
        return OkStatus();
      }
    }
    return InternalError("unknown function");
  }

 private:
  void Reduce(const std::vector<int32_t>& all, size_t count, size_t, coll::RedOp op, int32_t* out) const {
    const int n = link_.size();
    for (size_t i = 0; i < count; ++i) {
      int32_t acc = all[i];
      for (int r = 1; r < n; ++r) {
        const int32_t v = all[r * count + i];
        switch (op) {
          case coll::RedOp::kSum:
          case coll::RedOp::kAvg: acc += v; break;
          case coll::RedOp::kProd: acc *= v; break;
          case coll::RedOp::kMax: acc = std::max(acc, v); break;
          case coll::RedOp::kMin: acc = std::min(acc, v); break;
        }
      }
      out[i] = op == coll::RedOp::kAvg ? acc / n : acc;
    }
  }

  coll::CommLink& link_;
  std::atomic<int>* live_;
};

TEST(CommCollTest, RingTreeCallsReachTheCommunicatorsHostColl) {
  std::atomic<int> live{0}, made{0};
  JobOptions options;
  options.host_coll = [&](coll::CommLink& link) -> StatusOr<std::unique_ptr<coll::HostColl>> {
    ++made;
    return std::unique_ptr<coll::HostColl>(new ReferenceHostColl(link, &live));
  };
  constexpr int n = 4;
  ExpectAllOk(
      RunJob(
          n, options,
          [&](Context& ctx, auto&) -> Status {
            grComm& w = *ctx.world();
            const int me = w.rank;
            std::vector<int32_t> in = {me + 1, 2 * me, -me}, out(3, 0);
            GR_ASSIGN_OR_RETURN(coll::CollCall ar, CheckAllreduce(w, in.data(), out.data(), 3, grInt32, grSum));
            GR_RETURN_IF_ERROR(RunHostColl(w, ar));
            GR_RETURN_IF_ERROR(Expect(out == std::vector<int32_t>{10, 12, -6}, "allreduce"));
            GR_ASSIGN_OR_RETURN(coll::CollCall mx, CheckAllreduce(w, in.data(), in.data(), 3, grInt32, grMax));
            GR_RETURN_IF_ERROR(RunHostColl(w, mx));
            GR_RETURN_IF_ERROR(Expect(in == std::vector<int32_t>{4, 6, 0}, "in-place max"));
            int32_t b = me == 2 ? 99 : -1;
            GR_ASSIGN_OR_RETURN(coll::CollCall bc, CheckBcast(w, &b, 1, grInt32, 2));
            GR_RETURN_IF_ERROR(RunHostColl(w, bc));
            GR_RETURN_IF_ERROR(Expect(b == 99, "bcast"));
            int32_t v = me + 1, sum = -1;
            GR_ASSIGN_OR_RETURN(coll::CollCall rd, CheckReduce(w, &v, me == 1 ? &sum : nullptr, 1, grInt32, grProd, 1));
            GR_RETURN_IF_ERROR(RunHostColl(w, rd));
            GR_RETURN_IF_ERROR(Expect(me != 1 || sum == 24, "reduce prod at the root"));
            std::vector<int32_t> gathered(2 * n, -1);
            gathered[2 * me] = me;
            gathered[2 * me + 1] = -me;
            GR_ASSIGN_OR_RETURN(coll::CollCall ag, CheckAllgather(w, &gathered[2 * me], gathered.data(), 2, grInt32));
            GR_RETURN_IF_ERROR(RunHostColl(w, ag));
            for (int r = 0; r < n; ++r) {
              GR_RETURN_IF_ERROR(Expect(gathered[2 * r] == r && gathered[2 * r + 1] == -r, "allgather"));
            }
            std::vector<int32_t> blocks(n);
            for (int r = 0; r < n; ++r) blocks[r] = 10 * r + me;
            int32_t mine = -1;
            GR_ASSIGN_OR_RETURN(coll::CollCall rs, CheckReduceScatter(w, blocks.data(), &mine, 1, grInt32, grAvg));
            GR_RETURN_IF_ERROR(RunHostColl(w, rs));
            GR_RETURN_IF_ERROR(Expect(mine == 10 * me + 1, "reducescatter avg"));  // (0+1+2+3)/4 = 1
            // A dup gets its own HostColl, destroyed when it is freed.
            const int before = live.load();
            GR_ASSIGN_OR_RETURN(grComm * dup, DupComm(ctx, w));
            GR_RETURN_IF_ERROR(RunHostColl(*dup, ar));
            GR_RETURN_IF_ERROR(ctx.bootstrap().Barrier());
            GR_RETURN_IF_ERROR(Expect(live.load() >= before + 1, "dup's HostColl"));
            GR_RETURN_IF_ERROR(ctx.FreeComm(dup));
            // The barrier, whichever way it runs, holds every rank.
            return Barrier(w);
          }),
      "ring/tree dispatch");
  EXPECT_EQ(made.load(), 2 * n);  // one per communicator per rank: world and dup
  EXPECT_EQ(live.load(), 0);      // freed with the dup, and by Finalize
}

TEST(CommCollTest, FactoryErrorsReachTheCaller) {
  JobOptions options;
  options.host_coll = [](coll::CommLink&) -> StatusOr<std::unique_ptr<coll::HostColl>> {
    return Unsupported("no executor here");
  };
  ExpectAllOk(RunJob(2, options,
                     [](Context& ctx, auto&) -> Status {
                       int32_t x = 1;
                       GR_ASSIGN_OR_RETURN(coll::CollCall call,
                                           CheckAllreduce(*ctx.world(), &x, &x, 1, grInt32, grSum));
                       const Status s = RunHostColl(*ctx.world(), call);
                       return Expect(s.code() == grUnsupported && s.message() == "no executor here", s.ToString());
                     }),
              "factory error");
}

}  // namespace
}  // namespace gpurun
