// The host tuner (coll/tuner/tuner.h, host_model.h): the choice is the
// cheapest allowed candidate and sane (LL for tiny messages, Simple for huge
// ones, no protocol band that comes back), predicted times grow with size,
// GPURUN_ALGO / GPURUN_PROTO filter and never enable, impossible forced
// choices are InvalidUsage naming the variable, its value and the collective,
// GPURUN_NCHANNELS is honoured and validated, and the model's shape numbers
// (tree depth, sides) follow the double binary tree.
#include "coll/tuner/tuner.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "coll/patterns/double_binary_tree.h"
#include "coll/planner/planner.h"
#include "coll/tuner/host_model.h"
#include "coll/tuner/tuner_tables.h"
#include "coll_test_util.h"
#include "runtime/base/param_table.h"
#include "runtime/base/params.h"

namespace gpurun::coll {
namespace {

constexpr Func kFuncs[] = {Func::kBroadcast, Func::kReduce, Func::kAllGather, Func::kReduceScatter, Func::kAllReduce};
constexpr Algo kAllAlgos[] = {Algo::kTree, Algo::kRing, Algo::kNvls, Algo::kOneShot, Algo::kTwoShot};
constexpr Protocol kAllProtos[] = {Protocol::kLL, Protocol::kLL128, Protocol::kSimple};
constexpr uint64_t kGiB = uint64_t{1} << 30;

TuneInput Input(Func func, uint64_t bytes, int nranks, int nnodes = 1) {
  TuneInput input;
  input.func = func;
  input.bytes = bytes;
  input.nranks = nranks;
  input.nnodes = nnodes;
  input.local_ranks = (nranks + nnodes - 1) / nnodes;
  return input;
}

CollOverride Override(std::string_view algo, std::string_view proto) {
  CollOverride o;
  StatusOr<AlgoMask> a = ParseAlgoOverride(algo);
  StatusOr<ProtoMask> p = ParseProtoOverride(proto);
  EXPECT_TRUE(a.ok() && p.ok()) << algo << " / " << proto;
  if (a.ok()) o.algo = *a;
  if (p.ok()) o.proto = *p;
  return o;
}

TuneChoice ChooseOk(const TuneInput& input, const CollOverride& o = {}) {
  StatusOr<TuneChoice> choice = ChooseHost(input, o);
  EXPECT_TRUE(choice.ok()) << FuncName(input.func) << " " << input.bytes << " B: " << choice.status().message();
  return choice.ok() ? *choice : TuneChoice{};
}

// Every test leaves the registry at its defaults.
class TunerTest : public ::testing::Test {
 protected:
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

TEST_F(TunerTest, ChoiceIsTheCheapestAllowedCandidate) {
  for (Func func : kFuncs) {
    for (int n : {1, 2, 3, 4, 5, 8, 16}) {
      for (uint64_t bytes = 0; bytes <= kGiB; bytes = bytes == 0 ? 1 : bytes * 4) {
        const TuneInput input = Input(func, bytes, n);
        const TuneChoice choice = ChooseOk(input);
        EXPECT_DOUBLE_EQ(choice.predicted_us, PredictHostUs(input, choice.algo, choice.proto, choice.nchannels));
        // Oneshot allgather / broadcast and twoshot allreduce compete only
        // for messages larger than message_eager_bytes (tuner.h).
        const uint64_t message = func == Func::kBroadcast ? bytes : bytes / static_cast<uint64_t>(n);
        for (Algo a : kAllAlgos) {
          if (HostRunsAsMessages(func, a) && message <= input.message_eager_bytes) continue;
          for (Protocol p : kAllProtos) {
            for (int c = 1; c <= kHostAutoMaxChannels; ++c) {
              const double t = PredictHostUs(input, a, p, c);
              if (t < 0) continue;
              EXPECT_LE(choice.predicted_us, t) << FuncName(func) << " n=" << n << " " << bytes << " B";
            }
          }
        }
      }
    }
  }
}

TEST_F(TunerTest, LLForTinySimpleForHuge) {
  for (Func func : kFuncs) {
    for (int n : {2, 3, 4, 8, 16}) {
      EXPECT_EQ(ChooseOk(Input(func, 8, n)).proto, Protocol::kLL) << FuncName(func) << " n=" << n;
      EXPECT_EQ(ChooseOk(Input(func, kGiB, n)).proto, Protocol::kSimple) << FuncName(func) << " n=" << n;
    }
  }
}

// As the size grows the protocol only moves towards bandwidth (LL, then
// LL128, then Simple) and the predicted time never drops.
TEST_F(TunerTest, ProtocolBandsAndTimesAreMonotonic) {
  for (Func func : kFuncs) {
    for (int n : {2, 3, 4, 7, 8, 16}) {
      for (int nodes : {1, 2}) {
        int last_proto = -1;
        double last_time = 0;
        for (uint64_t bytes = 8; bytes <= kGiB; bytes *= 2) {
          const TuneChoice choice = ChooseOk(Input(func, bytes, n, nodes));
          EXPECT_GE(static_cast<int>(choice.proto), last_proto) << FuncName(func) << " n=" << n << " " << bytes;
          EXPECT_GE(choice.predicted_us, last_time) << FuncName(func) << " n=" << n << " " << bytes << " B";
          last_proto = static_cast<int>(choice.proto);
          last_time = choice.predicted_us;
        }
      }
    }
  }
}

TEST_F(TunerTest, OneRankIsRingSimpleAtBaseCost) {
  for (Func func : kFuncs) {
    const TuneChoice small = ChooseOk(Input(func, 8, 1));
    const TuneChoice big = ChooseOk(Input(func, kGiB, 1));
    EXPECT_EQ(small.algo, Algo::kRing);
    EXPECT_EQ(small.proto, Protocol::kSimple);
    EXPECT_EQ(small.nchannels, 1);
    EXPECT_DOUBLE_EQ(small.predicted_us, big.predicted_us) << "one rank moves nothing between ranks";
  }
}

TEST_F(TunerTest, HostPathImplementsRingEverywhereTreeForAllreduceOneshotForThreeFunctionsTwoshotForAllreduce) {
  for (Func func : kFuncs) {
    const TuneInput input = Input(func, 4096, 4);
    const TuneInput across = Input(func, 4096, 4, 2);
    const bool messages = func == Func::kAllGather || func == Func::kBroadcast;
    for (Protocol p : kAllProtos) {
      EXPECT_GT(PredictHostUs(input, Algo::kRing, p, 1), 0) << FuncName(func);
      EXPECT_EQ(PredictHostUs(input, Algo::kTree, p, 1) > 0, func == Func::kAllReduce) << FuncName(func);
      // Oneshot allgather / broadcast are point-to-point messages: simple
      // only, one channel, on one host and across hosts alike.
      const bool oneshot = func == Func::kAllReduce || (messages && p == Protocol::kSimple);
      EXPECT_EQ(PredictHostUs(input, Algo::kOneShot, p, 1) > 0, oneshot) << FuncName(func) << " " << ProtocolName(p);
      EXPECT_EQ(PredictHostUs(across, Algo::kOneShot, p, 1) > 0, oneshot && p != Protocol::kLL128)
          << FuncName(func) << " across hosts: oneshot over NET, which has no ll128";
      if (messages) {
        EXPECT_LT(PredictHostUs(input, Algo::kOneShot, p, 2), 0) << "one channel only";
      }
      // Twoshot allreduce: point-to-point messages too, simple and one channel.
      const bool twoshot = func == Func::kAllReduce && p == Protocol::kSimple;
      EXPECT_EQ(PredictHostUs(input, Algo::kTwoShot, p, 1) > 0, twoshot) << FuncName(func) << " " << ProtocolName(p);
      EXPECT_EQ(PredictHostUs(across, Algo::kTwoShot, p, 1) > 0, twoshot) << FuncName(func) << " across hosts";
      EXPECT_LT(PredictHostUs(input, Algo::kTwoShot, p, 2), 0) << "one channel only";
      EXPECT_LT(PredictHostUs(input, Algo::kNvls, p, 1), 0);
      EXPECT_LT(PredictHostUs(input, Algo::kRing, p, 0), 0);
      EXPECT_LT(PredictHostUs(input, Algo::kRing, p, kHostMaxChannels + 1), 0);
      EXPECT_GT(PredictHostUs(input, Algo::kRing, p, kHostMaxChannels), 0);
    }
  }
}

// The tables and the executor agree on what exists and on the channel limit.
TEST_F(TunerTest, TablesMatchTheHostExecutor) {
  static_assert(kHostMaxChannels == kMaxChannels, "GPURUN_NCHANNELS limit = the planner's");
  for (Func func : kFuncs) {
    for (Algo a : kAllAlgos) {
      EXPECT_EQ(kHostTables.implemented[static_cast<int>(func)][static_cast<int>(a)], HostAlgoExists(func, a))
          << FuncName(func) << " " << AlgoName(a);
    }
  }
}

TEST_F(TunerTest, TreeWinsSmallAllreducesOnlyWhereItIsShallower) {
  // The executor runs the two trees one after the other: 2 trees x 2 passes x
  // depth hops against the ring's 2(n-1). 4 ranks: 8 against 6; 16 ranks:
  // 16 against 30.
  const CollOverride ring_tree = Override("ring,tree", "");
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 8, 4), ring_tree).algo, Algo::kRing);
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 8, 16), ring_tree).algo, Algo::kTree);
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, kGiB, 16), ring_tree).algo, Algo::kRing) << "the tree moves more";
}

TEST_F(TunerTest, OneshotTakesAllgatherAndBroadcastFromTheirCrossover) {
  // On one host the messages copy each byte once, the ring's FIFOs twice
  // (tuner_tables_host.cc D: the crossover is 16-32 KiB with two ranks).
  for (Func func : {Func::kAllGather, Func::kBroadcast}) {
    EXPECT_EQ(ChooseOk(Input(func, 8, 2)).algo, Algo::kRing) << FuncName(func);
    EXPECT_EQ(ChooseOk(Input(func, 8192, 2)).algo, Algo::kRing) << FuncName(func);
    for (uint64_t bytes : {uint64_t{65536}, uint64_t{1} << 20, kGiB}) {
      const TuneChoice c = ChooseOk(Input(func, bytes, 2));
      EXPECT_EQ(c.algo, Algo::kOneShot) << FuncName(func) << " " << bytes;
      EXPECT_EQ(c.proto, Protocol::kSimple);
      EXPECT_EQ(c.nchannels, 1);
    }
    // Across hosts the ring's NET connectors add a copy on each side to
    // UCX's (tuner_tables_host.cc M): the messages from 512 KiB (allgather's
    // 256 KiB is two eager 128 KiB messages, which UCX copies too), the ring
    // below.
    EXPECT_EQ(ChooseOk(Input(func, 128 << 10, 2, 2)).algo, Algo::kRing) << FuncName(func);
    EXPECT_EQ(ChooseOk(Input(func, 512 << 10, 2, 2)).algo, Algo::kOneShot) << FuncName(func);
    EXPECT_EQ(ChooseOk(Input(func, 1 << 20, 2, 2)).algo, Algo::kOneShot) << FuncName(func);
    // GPURUN_PROTO=ll leaves oneshot out; GPURUN_ALGO=oneshot keeps it.
    EXPECT_EQ(ChooseOk(Input(func, 1 << 20, 2), Override("", "ll")).algo, Algo::kRing);
    EXPECT_EQ(ChooseOk(Input(func, 8, 2), Override("oneshot", "")).algo, Algo::kOneShot);
  }
}

TEST_F(TunerTest, OneshotMessagesOnlyFromTheSingleCopySize) {
  // Allgather's messages are the blocks: with 8 ranks, blocks larger than
  // the 16 KiB the engine still sends eagerly (copied twice) come at 256
  // KiB; up to 128 KiB the ring, though the model alone (message_eager_bytes
  // 0) would take oneshot there.
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 65536, 8)).algo, Algo::kRing);
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 131072, 8)).algo, Algo::kRing) << "16 KiB blocks go eagerly";
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 262144, 8)).algo, Algo::kOneShot);
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 32768, 2)).algo, Algo::kRing) << "measured: F, tuner_tables_host.cc";
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 65536, 2)).algo, Algo::kOneShot);
  TuneInput no_rule = Input(Func::kAllGather, 65536, 8);
  no_rule.message_eager_bytes = 0;
  EXPECT_EQ(ChooseOk(no_rule).algo, Algo::kOneShot);
  // A larger limit moves it: blocks larger than 64 KiB from 1 MiB.
  TuneInput larger = Input(Func::kAllGather, 524288, 8);
  larger.message_eager_bytes = 65536;
  EXPECT_EQ(ChooseOk(larger).algo, Algo::kRing);
  larger.bytes = 1048576;
  EXPECT_EQ(ChooseOk(larger).algo, Algo::kOneShot);
  // Broadcast's message is the whole buffer.
  EXPECT_EQ(ChooseOk(Input(Func::kBroadcast, 8192, 4)).algo, Algo::kRing);
  // Restricted to oneshot, small messages still run oneshot.
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 64, 8), Override("oneshot", "")).algo, Algo::kOneShot);
}

TEST_F(TunerTest, OneshotTakesSmallAllreducesWhereItHasFewerHops) {
  // n - 1 hops against the ring's 2(n-1), but 2(n-1) sides per byte against
  // 4(n-1)/n: the same traffic with two ranks, n/2 times the ring's beyond.
  for (int n : {2, 4, 8}) {
    EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 8, n)).algo, Algo::kOneShot) << n;
    if (n > 2) {
      EXPECT_NE(ChooseOk(Input(Func::kAllReduce, kGiB, n)).algo, Algo::kOneShot) << n;
    }
  }
  // Across nodes a NET hop per peer on another node: one rank on each of two
  // nodes, 1 against the ring's 2; 4 or 8 ranks a node, 4 or 8 against 2.
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 8, 2, 2)).algo, Algo::kOneShot);
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 32768, 2, 2)).algo, Algo::kOneShot);
  EXPECT_NE(ChooseOk(Input(Func::kAllReduce, 8 << 20, 2, 2)).algo, Algo::kOneShot) << "no pipelining in a chunk";
  for (int n : {8, 16}) EXPECT_NE(ChooseOk(Input(Func::kAllReduce, 8, n, 2)).algo, Algo::kOneShot) << n;
}

// Across nodes the ring pays 2(nodes-1) NET hops, the trees about 4 log2
// of the node count (two trees one after the other, up and down): the tree
// takes small allreduces once the node count makes that the shorter path.
TEST_F(TunerTest, AcrossNodesNetHopsCostAndTreeWinsSmallAtScale) {
  double last_ratio = 0;
  for (int nodes : {2, 4, 8, 16, 32, 64}) {
    const TuneInput input = Input(Func::kAllReduce, 8, 2 * nodes, nodes);
    const TuneChoice choice = ChooseOk(input);
    EXPECT_GT(choice.predicted_us, ChooseOk(Input(Func::kAllReduce, 8, 2 * nodes)).predicted_us);
    EXPECT_GE(choice.predicted_us, kHostTables.net_hop_us[static_cast<int>(choice.proto)]) << "at least one NET hop";
    const double ratio =
        PredictHostUs(input, Algo::kRing, Protocol::kLL, 1) / PredictHostUs(input, Algo::kTree, Protocol::kLL, 1);
    EXPECT_GT(ratio, last_ratio) << nodes << " nodes: the tree gains with the node count";
    last_ratio = ratio;
    if (nodes >= 16) {
      EXPECT_EQ(choice.algo, Algo::kTree) << nodes << " nodes";
    }
  }
  // One rank per node: 31 NET hops for oneshot against about 20 for the
  // trees (at 16 nodes 15 against 16, where oneshot is priced just under).
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 8, 32, 32)).algo, Algo::kTree) << "one rank per node";
}

// LL128 has no NET edges: never chosen across nodes, and forcing it there is
// an error that says why (one node still has it).
TEST_F(TunerTest, NoLL128AcrossNodes) {
  for (Func func : kFuncs) {
    for (uint64_t bytes : {uint64_t{8}, uint64_t{1} << 16, uint64_t{1} << 22, kGiB}) {
      EXPECT_NE(ChooseOk(Input(func, bytes, 4, 2)).proto, Protocol::kLL128) << FuncName(func) << " " << bytes;
      EXPECT_LT(PredictHostUs(Input(func, bytes, 4, 2), Algo::kRing, Protocol::kLL128, 1), 0);
    }
  }
  const auto forced = ChooseHost(Input(Func::kAllReduce, 1024, 4, 2), Override("", "ll128"));
  ASSERT_FALSE(forced.ok());
  EXPECT_EQ(forced.status().code(), grInvalidUsage);
  EXPECT_NE(forced.status().message().find("LL128 is off on NET"), std::string::npos) << forced.status().message();
  EXPECT_NE(forced.status().message().find("GPURUN_PROTO"), std::string::npos) << forced.status().message();
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 1024, 4), Override("", "ll128")).proto, Protocol::kLL128);
}

TEST_F(TunerTest, OverridesFilterNeverEnable) {
  // Only LL allowed: LL even at 1 GiB.
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, kGiB, 4), Override("", "ll")).proto, Protocol::kLL);
  // ^ll: never LL, even at 8 B.
  for (Func func : kFuncs) EXPECT_NE(ChooseOk(Input(func, 8, 4), Override("", "^ll")).proto, Protocol::kLL);
  // Tree forced for allreduce at 1 GiB (ring would win).
  const TuneChoice tree = ChooseOk(Input(Func::kAllReduce, kGiB, 4), Override("tree", ""));
  EXPECT_EQ(tree.algo, Algo::kTree);
  EXPECT_EQ(tree.nchannels, 1);
  // A clause for allreduce leaves broadcast free.
  const CollOverride per_func = Override("allreduce:tree", "allreduce:ll128");
  EXPECT_EQ(ChooseOk(Input(Func::kBroadcast, 8, 4), per_func).proto, Protocol::kLL);
  const TuneChoice ar = ChooseOk(Input(Func::kAllReduce, 8, 4), per_func);
  EXPECT_EQ(ar.algo, Algo::kTree);
  EXPECT_EQ(ar.proto, Protocol::kLL128);
  // Names the host path lacks are filtered out when something else is left.
  EXPECT_EQ(ChooseOk(Input(Func::kAllGather, 8, 4), Override("nvls,ring", "")).algo, Algo::kRing);
}

void ExpectInvalidUsage(const TuneInput& input, const CollOverride& o, std::initializer_list<const char*> words) {
  StatusOr<TuneChoice> choice = ChooseHost(input, o);
  ASSERT_FALSE(choice.ok()) << FuncName(input.func);
  EXPECT_EQ(choice.status().code(), grInvalidUsage) << choice.status().message();
  for (const char* word : words) {
    EXPECT_NE(choice.status().message().find(word), std::string::npos)
        << "'" << word << "' missing from: " << choice.status().message();
  }
}

TEST_F(TunerTest, ImpossibleForcedChoicesAreInvalidUsage) {
  ExpectInvalidUsage(Input(Func::kAllGather, 1024, 4), Override("tree", ""), {"GPURUN_ALGO", "tree", "allgather"});
  for (Func func : kFuncs) {
    ExpectInvalidUsage(Input(func, 1024, 4), Override("nvls", ""), {"GPURUN_ALGO", "nvls", FuncName(func)});
    if (func != Func::kAllReduce) {
      ExpectInvalidUsage(Input(func, 1024, 4), Override("twoshot", ""), {"GPURUN_ALGO", "twoshot"});
    }
    if (func == Func::kReduce || func == Func::kReduceScatter) {
      ExpectInvalidUsage(Input(func, 1024, 4), Override("oneshot", ""), {"GPURUN_ALGO", "oneshot"});
    }
    if (func == Func::kAllGather || func == Func::kBroadcast) {  // messages: simple only
      ExpectInvalidUsage(Input(func, 1024, 4), Override("oneshot", "ll,ll128"),
                         {"GPURUN_ALGO", "oneshot", "ll", "oneshot with simple"});
    }
  }
  // Twoshot allreduce: messages, simple only; at any size when forced, even
  // under the smallest message the engine copies once.
  ExpectInvalidUsage(Input(Func::kAllReduce, 1024, 4), Override("twoshot", "ll,ll128"),
                     {"GPURUN_ALGO", "twoshot", "twoshot with simple"});
  for (uint64_t bytes : {uint64_t{8}, uint64_t{1024}, kGiB}) {
    for (int nodes : {1, 2}) {
      const TuneChoice forced = ChooseOk(Input(Func::kAllReduce, bytes, 4, nodes), Override("twoshot", ""));
      EXPECT_EQ(forced.algo, Algo::kTwoShot);
      EXPECT_EQ(forced.proto, Protocol::kSimple);
    }
  }
  // Oneshot exists for allreduce, on one host and across hosts (over NET, without ll128).
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 1024, 4), Override("oneshot", "")).algo, Algo::kOneShot);
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 1024, 4, 2), Override("oneshot", "")).algo, Algo::kOneShot);
  ExpectInvalidUsage(Input(Func::kAllReduce, 1024, 4, 2), Override("oneshot", "ll128"),
                     {"GPURUN_ALGO", "GPURUN_PROTO", "oneshot", "allreduce", "2 host(s)", "not ll128"});
  // Tree is allowed for broadcast by the mask, but the host path has no tree broadcast.
  ExpectInvalidUsage(Input(Func::kBroadcast, 8, 4), Override("broadcast:tree", "simple"),
                     {"GPURUN_ALGO", "GPURUN_PROTO", "broadcast"});
  // Per collective: the others keep working.
  const CollOverride o = Override("reducescatter:tree", "");
  ExpectInvalidUsage(Input(Func::kReduceScatter, 8, 4), o, {"reducescatter"});
  EXPECT_TRUE(ChooseHost(Input(Func::kAllReduce, 8, 4), o).ok());
  // The same holds with one rank.
  ExpectInvalidUsage(Input(Func::kAllGather, 8, 1), Override("tree", ""), {"GPURUN_ALGO"});
}

// Twoshot allreduce (tuner_tables_host.cc E): on one host the ring is faster
// at every size, so never chosen there; across hosts, where its messages go
// from the user's buffer and the ring's NET proxy copies every step, chosen
// for large calls and not for small ones (one NET hop of oneshot wins).
TEST_F(TunerTest, TwoShotOnlyForLargeAllreduceAcrossHosts) {
  for (int n : {2, 3, 4, 8, 16}) {
    for (uint64_t bytes = 8; bytes <= kGiB; bytes *= 4) {
      EXPECT_NE(ChooseOk(Input(Func::kAllReduce, bytes, n)).algo, Algo::kTwoShot) << n << " ranks, " << bytes << " B";
    }
  }
  for (int nodes : {2, 4}) {
    EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, uint64_t{8} << 20, nodes, nodes)).algo, Algo::kTwoShot) << nodes;
    EXPECT_NE(ChooseOk(Input(Func::kAllReduce, 8192, nodes, nodes)).algo, Algo::kTwoShot) << nodes;
  }
  // Across hosts only for messages UCX sends without a copy, larger than
  // net_message_eager_bytes: 64 KiB and 128 KiB blocks are not, so the ring,
  // though the model alone takes twoshot there; 256 KiB blocks are.
  TuneInput mid = Input(Func::kAllReduce, 131072, 2, 2);
  EXPECT_NE(ChooseOk(mid).algo, Algo::kTwoShot);
  mid.net_message_eager_bytes = 0;
  EXPECT_EQ(ChooseOk(mid).algo, Algo::kTwoShot);
  EXPECT_NE(ChooseOk(Input(Func::kAllReduce, 262144, 2, 2)).algo, Algo::kTwoShot) << "128 KiB blocks go eagerly";
  EXPECT_EQ(ChooseOk(Input(Func::kAllReduce, 524288, 2, 2)).algo, Algo::kTwoShot);
  // GPURUN_COLL_NET=always (all_net): the messages do not cross NET there, so
  // they are left out unless forced.
  TuneInput all_net = Input(Func::kAllReduce, uint64_t{8} << 20, 4, 4);
  all_net.all_net = true;
  EXPECT_NE(ChooseOk(all_net).algo, Algo::kTwoShot);
  EXPECT_EQ(ChooseOk(all_net, Override("twoshot", "")).algo, Algo::kTwoShot);
  // On one host the smaller shared-memory limit applies, not the UCX one.
  TuneInput local = Input(Func::kAllGather, 65536, 2);
  local.net_message_eager_bytes = uint64_t{1} << 30;
  EXPECT_EQ(ChooseOk(local).algo, Algo::kOneShot);
}

TEST_F(TunerTest, NChannelsForcesTheChannelCount) {
  for (int c : {1, 3, kHostMaxChannels}) {
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_NCHANNELS", std::to_string(c)).ok());
    for (Func func : kFuncs) {
      for (uint64_t bytes : {uint64_t{8}, kGiB}) {
        const TuneChoice choice = ChooseOk(Input(func, bytes, 4));
        EXPECT_EQ(choice.nchannels, c) << FuncName(func);
        EXPECT_DOUBLE_EQ(choice.predicted_us, PredictHostUs(Input(func, bytes, 4), choice.algo, choice.proto, c));
      }
    }
  }
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_NCHANNELS", "0").ok());
  for (Func func : kFuncs) {
    EXPECT_EQ(ChooseOk(Input(func, kGiB, 4)).nchannels, 1) << "auto: channels only add latency on the host";
  }
}

TEST_F(TunerTest, NChannelsAboveTheHostMaximumIsAnError) {
  const std::string over = std::to_string(kHostMaxChannels + 1);
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_NCHANNELS", over).ok()) << "valid for the registry (0..128)";
  StatusOr<TuneChoice> choice = ChooseHost(Input(Func::kAllReduce, 8, 4), {});
  ASSERT_FALSE(choice.ok());
  EXPECT_EQ(choice.status().code(), grInvalidUsage);
  EXPECT_NE(choice.status().message().find("GPURUN_NCHANNELS=" + over), std::string::npos) << choice.status().message();
  EXPECT_NE(choice.status().message().find("allreduce"), std::string::npos) << choice.status().message();
}

TEST_F(TunerTest, NChannelsBadValuesAreRejectedByTheRegistry) {
  for (const char* bad : {"-1", "129", "abc", "2.5", ""}) {
    const Status status = ParamRegistry::Global().Override("GPURUN_NCHANNELS", bad);
    EXPECT_FALSE(status.ok()) << "'" << bad << "'";
    EXPECT_NE(status.message().find("GPURUN_NCHANNELS"), std::string::npos) << status.message();
  }
  EXPECT_EQ(params::kNChannels.Get(), 0) << "a rejected value leaves the default";
}

TEST(HostModelTest, TreeShapeFollowsTheDoubleBinaryTree) {
  // Two ranks: each is root of one tree and leaf of the other.
  HostShape two = MakeHostShape(2, 1, 2);
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(two.tree_intra_hops[t], 1);
    EXPECT_EQ(two.tree_inter_hops[t], 0);
  }
  EXPECT_DOUBLE_EQ(two.tree_sides, 1);
  // Four ranks: tree 0 is 0 -> 2 -> {1, 3}, tree 1 its mirror; the inner
  // rank has a parent and two children.
  HostShape four = MakeHostShape(4, 1, 4);
  EXPECT_EQ(four.tree_intra_hops[0], 2);
  EXPECT_EQ(four.tree_intra_hops[1], 2);
  EXPECT_DOUBLE_EQ(four.tree_sides, 3);
  // One rank per node: every tree hop is a NET hop.
  HostShape spread = MakeHostShape(8, 8, 1);
  const HostShape one_node = MakeHostShape(8, 1, 8);
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(spread.tree_intra_hops[t], 0);
    EXPECT_EQ(spread.tree_inter_hops[t], one_node.tree_intra_hops[t]);
  }
  // Against the pattern math: the deepest path is TreeDepth.
  for (int n : testing::RankCounts()) {
    const HostShape shape = MakeHostShape(n, 1, n);
    for (int t = 0; t < 2; ++t) EXPECT_EQ(shape.tree_intra_hops[t], TreeDepth(n, t)) << n;
    EXPECT_DOUBLE_EQ(shape.tree_sides, n == 1 ? 0 : n == 2 ? 1 : n == 3 ? 2 : 3) << n;
  }
}

TEST(HostModelTest, RingTimeFollowsStepsAndSides) {
  const HostShape shape = MakeHostShape(4, 1, 4);
  const TunerTables& t = kHostTables;
  const int simple = static_cast<int>(Protocol::kSimple), ring = static_cast<int>(Algo::kRing);
  // Allgather over 4 ranks: 3 hops; sides 2 * 3/4 per byte, copy bandwidth.
  const double expected = t.base_us[ring][simple] + t.work_us[simple] + 3 * t.hop_us[ring][simple] +
                          1e6 * 1.5 / (1000 * t.copy_gbps[ring][simple]);
  EXPECT_DOUBLE_EQ(PredictHost(t, shape, Func::kAllGather, Algo::kRing, Protocol::kSimple, 1, 1000000), expected);
  // Reducing costs more per byte than copying, at the same latency.
  EXPECT_GT(PredictHost(t, shape, Func::kReduceScatter, Algo::kRing, Protocol::kSimple, 1, 1000000), expected);
  EXPECT_DOUBLE_EQ(PredictHost(t, shape, Func::kReduceScatter, Algo::kRing, Protocol::kSimple, 1, 0),
                   PredictHost(t, shape, Func::kAllGather, Algo::kRing, Protocol::kSimple, 1, 0));
}

}  // namespace
}  // namespace gpurun::coll
