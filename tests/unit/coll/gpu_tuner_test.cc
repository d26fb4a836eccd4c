// The GPU tuner (coll/tuner/gpu_tuner.h, gpu_model.h): the model's formula
// on its own tables, the channel rule, the choice per size, and the forced
// choices it must refuse with a message naming what the GPU path has.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "coll/tuner/gpu_model.h"
#include "coll/tuner/gpu_tuner.h"
#include "coll/tuner/override.h"

namespace gpurun::coll {
namespace {

GpuTuneInput Input(Func func, uint64_t bytes) {
  GpuTuneInput in;
  in.func = func;
  in.bytes = bytes;
  in.nranks = 2;
  in.max_channels = 128;
  in.oneshot_max_bytes = func == Func::kAllReduce ? 4 << 20 : 0;
  in.tree_max_channels = func == Func::kAllReduce ? 16 : 0;
  return in;
}

CollOverride Forced(const char* algo, const char* proto) {
  CollOverride o;
  o.algo = *ParseAlgoOverride(algo);
  o.proto = *ParseProtoOverride(proto);
  return o;
}

TEST(GpuModel, FollowsTheFormula) {
  const GpuTunerTables& t = kH200NvlinkTables;
  const int f = static_cast<int>(Func::kAllGather), a = static_cast<int>(Algo::kRing),
            p = static_cast<int>(Protocol::kLL);
  // allgather on 2 ranks: one step, factor 1/2; 4 channels below the cap.
  const double expect = t.base_us[f][a][p] + t.hop_us[f][a][p] + 1e6 * 0.5 / (1000 * 4 * t.channel_gbps[f][a][p]);
  EXPECT_DOUBLE_EQ(PredictGpu(t, Func::kAllGather, Algo::kRing, Protocol::kLL, 2, 4, 1000000), expect);
  // The tree exists for allreduce only, one-shot likewise.
  EXPECT_GT(PredictGpu(t, Func::kAllReduce, Algo::kRing, Protocol::kLL128, 2, 4, 1024), 0);
  EXPECT_GT(PredictGpu(t, Func::kAllReduce, Algo::kTree, Protocol::kSimple, 2, 4, 1024), 0);
  EXPECT_LT(PredictGpu(t, Func::kAllGather, Algo::kTree, Protocol::kSimple, 2, 4, 1024), 0);
  EXPECT_LT(PredictGpu(t, Func::kBroadcast, Algo::kOneShot, Protocol::kLL, 2, 1, 1024), 0);
  // A tree allreduce's steps are twice the depth: 2 (up, down) on 2 ranks
  // and 2 * 4 on 9 (tree 0: 0 -> 8 -> 4 -> 2 -> 1 is four hops deep), where
  // the ring takes 2 * 8.
  const int fa = static_cast<int>(Func::kAllReduce), ta = static_cast<int>(Algo::kTree),
            ts = static_cast<int>(Protocol::kSimple);
  EXPECT_DOUBLE_EQ(PredictGpu(t, Func::kAllReduce, Algo::kTree, Protocol::kSimple, 9, 1, 0),
                   t.base_us[fa][ta][ts] + 8 * t.hop_us[fa][ta][ts]);
}

TEST(GpuModel, ChannelsGrowWithBytesUpToTheRing) {
  const GpuTunerTables& t = kH200NvlinkTables;
  const uint64_t per = t.min_channel_bytes[static_cast<int>(Protocol::kLL)];
  EXPECT_EQ(GpuChannels(t, Protocol::kLL, 8, 128), 1);
  EXPECT_EQ(GpuChannels(t, Protocol::kLL, 3 * per, 128), 3);
  EXPECT_EQ(GpuChannels(t, Protocol::kLL, 3 * per + 1, 128), 4);
  EXPECT_EQ(GpuChannels(t, Protocol::kLL, 1ull << 40, 128), 128);
  EXPECT_EQ(GpuChannels(t, Protocol::kLL, 1ull << 40, 24), 24);
}

TEST(GpuTuner, SmallAllReduceIsOneShotAndLargeIsTheRing) {
  const auto small = ChooseGpu(Input(Func::kAllReduce, 8), CollOverride{}, true);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->algo, Algo::kOneShot);
  const auto large = ChooseGpu(Input(Func::kAllReduce, 1ull << 30), CollOverride{}, true);
  ASSERT_TRUE(large.ok());
  EXPECT_EQ(large->algo, Algo::kRing);
  EXPECT_NE(large->proto, Protocol::kLL);
  EXPECT_EQ(large->nchannels, 128);
}

TEST(GpuTuner, SmallAllGatherIsLLOrLL128AndLargeIsNot) {
  const auto small = ChooseGpu(Input(Func::kAllGather, 1024), CollOverride{}, true);
  ASSERT_TRUE(small.ok());
  EXPECT_NE(small->proto, Protocol::kSimple);
  // Without NVLink, LL.
  GpuTuneInput host = Input(Func::kAllGather, 1024);
  host.ll128_limit = "LL128 needs NVLink";
  const auto ll = ChooseGpu(host, CollOverride{}, true);
  ASSERT_TRUE(ll.ok());
  EXPECT_EQ(ll->proto, Protocol::kLL);
  const auto large = ChooseGpu(Input(Func::kAllGather, 1ull << 30), CollOverride{}, true);
  ASSERT_TRUE(large.ok());
  EXPECT_NE(large->proto, Protocol::kLL);
  // Without LL128 on the ring, Simple.
  GpuTuneInput pcie = Input(Func::kAllGather, 1ull << 30);
  pcie.ll128_limit = "LL128 needs NVLink";
  const auto simple = ChooseGpu(pcie, CollOverride{}, true);
  ASSERT_TRUE(simple.ok());
  EXPECT_EQ(simple->proto, Protocol::kSimple);
}

TEST(GpuTuner, WithoutOneShotAllReduceUsesTheRing) {
  GpuTuneInput in = Input(Func::kAllReduce, 8);
  in.oneshot_limit = "a one-shot allreduce needs every rank on one host";
  const auto c = ChooseGpu(in, CollOverride{}, true);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->algo, Algo::kRing);
  EXPECT_EQ(c->proto, Protocol::kLL);
}

TEST(GpuTuner, HonoursAndRefusesForcedChoices) {
  const auto ll = ChooseGpu(Input(Func::kAllGather, 1ull << 30), Forced("", "ll"), true);
  ASSERT_TRUE(ll.ok());
  EXPECT_EQ(ll->proto, Protocol::kLL);
  // The runtime's own calls ignore the override.
  const auto free = ChooseGpu(Input(Func::kAllGather, 1ull << 30), Forced("", "ll"), false);
  ASSERT_TRUE(free.ok());
  EXPECT_NE(free->proto, Protocol::kLL);

  EXPECT_TRUE(ChooseGpu(Input(Func::kAllGather, 64), Forced("", "ll128"), true).ok());
  GpuTuneInput pcie = Input(Func::kAllGather, 64);
  pcie.ll128_limit = "LL128 needs NVLink, and rank 1 sees PCIe";
  const auto ll128 = ChooseGpu(pcie, Forced("", "ll128"), true);
  ASSERT_FALSE(ll128.ok());
  EXPECT_EQ(ll128.status().code(), grInvalidUsage);
  EXPECT_NE(ll128.status().message().find("GPURUN_PROTO='ll128'"), std::string::npos) << ll128.status().message();
  EXPECT_NE(ll128.status().message().find("rank 1 sees PCIe"), std::string::npos) << ll128.status().message();

  // One-shot forced above its limit says why it cannot run.
  const auto big = ChooseGpu(Input(Func::kAllReduce, 8 << 20), Forced("oneshot", ""), true);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("GPURUN_GPU_ONESHOT_BYTES"), std::string::npos) << big.status().message();
  GpuTuneInput far = Input(Func::kAllReduce, 8);
  far.oneshot_limit = "rank 3 is on another host";
  const auto other = ChooseGpu(far, Forced("oneshot", ""), true);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("rank 3 is on another host"), std::string::npos);
}

// Two-shot runs where one-shot does, with the same limits, on one channel
// (its kernel sizes its own grid), and only for allreduce.
TEST(GpuTuner, TwoShotWhereOneShotRuns) {
  const auto two = ChooseGpu(Input(Func::kAllReduce, 64 << 10), Forced("twoshot", ""), true);
  ASSERT_TRUE(two.ok()) << two.status().ToString();
  EXPECT_EQ(two->algo, Algo::kTwoShot);
  EXPECT_EQ(two->proto, Protocol::kLL);
  EXPECT_EQ(two->nchannels, 1);
  EXPECT_FALSE(ChooseGpu(Input(Func::kAllReduce, 64 << 10), Forced("twoshot", "simple"), true).ok());
  const auto big = ChooseGpu(Input(Func::kAllReduce, 8 << 20), Forced("twoshot", ""), true);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("GPURUN_GPU_ONESHOT_BYTES"), std::string::npos) << big.status().message();
  GpuTuneInput far = Input(Func::kAllReduce, 8);
  far.oneshot_limit = "rank 3 is on another host";
  const auto other = ChooseGpu(far, Forced("twoshot", ""), true);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("rank 3 is on another host"), std::string::npos);
  const auto ag = ChooseGpu(Input(Func::kAllGather, 1024), Forced("twoshot", ""), true);
  ASSERT_FALSE(ag.ok());
  EXPECT_EQ(ag.status().code(), grInvalidUsage);
  // The model: two steps, allreduce's bus factor 2(n-1)/n, so on 8 ranks it
  // moves 2/7 of one-shot's bytes per rank.
  const GpuTunerTables& t = kH200NvlinkTables;
  const double one_flat = PredictGpu(t, Func::kAllReduce, Algo::kOneShot, Protocol::kLL, 8, 1, 0);
  const double two_flat = PredictGpu(t, Func::kAllReduce, Algo::kTwoShot, Protocol::kLL, 8, 1, 0);
  const double one_mb = PredictGpu(t, Func::kAllReduce, Algo::kOneShot, Protocol::kLL, 8, 1, 1 << 20) - one_flat;
  const double two_mb = PredictGpu(t, Func::kAllReduce, Algo::kTwoShot, Protocol::kLL, 8, 1, 1 << 20) - two_flat;
  ASSERT_GT(one_mb, 0);
  const int f = static_cast<int>(Func::kAllReduce), p = static_cast<int>(Protocol::kLL);
  const double rates =
      t.max_gbps[f][static_cast<int>(Algo::kOneShot)][p] / t.max_gbps[f][static_cast<int>(Algo::kTwoShot)][p];
  EXPECT_NEAR(two_mb / one_mb, (2.0 * 7 / 8) / 7 * rates, 1e-9);
}

// The premise of the GPU matrix's TwoShot mixed case (gpu_matrix_test.cc):
// with GPURUN_ALGO=oneshot,twoshot on 4 ranks the tuner takes one-shot for
// small calls and two-shot from 1 MiB, so calls of both kinds take turns.
TEST(GpuTuner, FourRanksTakeOneShotSmallAndTwoShotLarge) {
  for (const auto& [bytes, algo] : {std::pair{uint64_t{8}, Algo::kOneShot}, {uint64_t{1} << 20, Algo::kTwoShot}}) {
    GpuTuneInput in = Input(Func::kAllReduce, bytes);
    in.nranks = 4;
    const auto c = ChooseGpu(in, Forced("oneshot,twoshot", ""), true);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->algo, algo) << bytes << " B";
  }
}

TEST(GpuTuner, TreeOnlyWhereItCanRun) {
  // Forced onto the tree, allreduce runs it on at most the tree's channels.
  const auto tree = ChooseGpu(Input(Func::kAllReduce, 1ull << 30), Forced("tree", ""), true);
  ASSERT_TRUE(tree.ok()) << tree.status().ToString();
  EXPECT_EQ(tree->algo, Algo::kTree);
  EXPECT_EQ(tree->nchannels, 16);
  // Not for allgather: the message names what the GPU path has.
  const auto ag = ChooseGpu(Input(Func::kAllGather, 1024), Forced("tree", ""), true);
  ASSERT_FALSE(ag.ok());
  EXPECT_EQ(ag.status().code(), grInvalidUsage);
  // LL128 off on the tree while the ring has it.
  GpuTuneInput pcie = Input(Func::kAllReduce, 1 << 20);
  pcie.tree_ll128_limit = "rank 2 sees a tree hop over PCIe";
  const auto ll128 = ChooseGpu(pcie, Forced("tree", "ll128"), true);
  ASSERT_FALSE(ll128.ok());
  EXPECT_NE(ll128.status().message().find("rank 2 sees a tree hop over PCIe"), std::string::npos)
      << ll128.status().message();
  EXPECT_TRUE(ChooseGpu(pcie, Forced("ring", "ll128"), true).ok());
  // More channels forced than the tree has: the tree cannot honour it.
  GpuTuneInput wide = Input(Func::kAllReduce, 1 << 20);
  wide.forced_channels = 32;
  const auto forced = ChooseGpu(wide, Forced("tree", ""), true);
  ASSERT_FALSE(forced.ok());
  EXPECT_NE(forced.status().message().find("up to 16 channels"), std::string::npos) << forced.status().message();
}

// A communicator across hosts has no GPU tree (only the ring has NET
// connections): never chosen, and forcing it says why.
TEST(GpuTuner, NoTreeAcrossHosts) {
  for (uint64_t bytes = 8; bytes <= (1ull << 32); bytes *= 4) {
    GpuTuneInput far = Input(Func::kAllReduce, bytes);
    far.oneshot_limit = "rank 1 is on another host";
    far.tree_limit = "the GPU tree has no NET connections; rank 1 is on another host";
    const auto c = ChooseGpu(far, CollOverride{}, true);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ(c->algo, Algo::kRing) << bytes << " B";
    const auto forced = ChooseGpu(far, Forced("tree", ""), true);
    ASSERT_FALSE(forced.ok());
    EXPECT_EQ(forced.status().code(), grInvalidUsage);
    EXPECT_NE(forced.status().message().find("not tree: the GPU tree has no NET connections"), std::string::npos)
        << forced.status().message();
  }
}

TEST(GpuTuner, ForcedChannels) {
  GpuTuneInput in = Input(Func::kAllGather, 1ull << 20);
  in.forced_channels = 3;
  const auto c = ChooseGpu(in, CollOverride{}, true);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->nchannels, 3);
  in.forced_channels = 129;
  const auto too_many = ChooseGpu(in, CollOverride{}, true);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("GPURUN_NCHANNELS=129"), std::string::npos);
}

}  // namespace
}  // namespace gpurun::coll
