// gpurun-bench's command line: nccl-tests' flags, the strict rejection of bad
// values, and the sizes a sweep visits.
#include "bench/bench_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

gpurun::StatusOr<BenchArgs> Parse(std::vector<std::string> words) {
  words.insert(words.begin(), "gpurun-bench");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return ParseBenchArgs(static_cast<int>(argv.size()), argv.data());
}

TEST(BenchArgs, CollectiveDefaults) {
  auto a = Parse({"allreduce"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->colls, std::vector<CollKind>{CollKind::kAllreduce});
  EXPECT_EQ(a->min_bytes, 8u);
  EXPECT_EQ(a->max_bytes, 16u << 20);
  EXPECT_EQ(a->factor, 2u);
  EXPECT_EQ(a->checks, 1);
  EXPECT_EQ(a->types, std::vector<grDataType_t>{grFloat32});
  EXPECT_EQ(a->ops, std::vector<grRedOp_t>{grSum});
  EXPECT_EQ(a->root, 0);
  EXPECT_FALSE(a->all_roots);
}

TEST(BenchArgs, NcclTestsFlags) {
  auto a = Parse({"reduce", "-b", "8",  "-e",       "64K", "-f",  "4",  "-n", "7",      "-w",      "3",
                  "-c",     "2",  "-d", "bfloat16", "-o",  "max", "-r", "1",  "--json", "out.json"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->colls, std::vector<CollKind>{CollKind::kReduce});
  EXPECT_EQ(a->max_bytes, 65536u);
  EXPECT_EQ(a->factor, 4u);
  EXPECT_EQ(a->iters, 7);
  EXPECT_EQ(a->warmup, 3);
  EXPECT_EQ(a->checks, 2);
  EXPECT_EQ(a->types, std::vector<grDataType_t>{grBfloat16});
  EXPECT_EQ(a->ops, std::vector<grRedOp_t>{grMax});
  EXPECT_EQ(a->root, 1);
  EXPECT_EQ(a->json_path, "out.json");
}

TEST(BenchArgs, LongSpellingsAndAll) {
  auto a = Parse({"all_gather", "--minbytes", "1K", "--maxbytes", "1M", "--datatype", "all", "--op", "all", "--root",
                  "all", "--check", "0"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->colls, std::vector<CollKind>{CollKind::kAllgather});
  EXPECT_EQ(a->min_bytes, 1024u);
  EXPECT_EQ(a->types.size(), 10u);
  EXPECT_EQ(a->ops.size(), 5u);
  EXPECT_TRUE(a->all_roots);
  EXPECT_EQ(a->checks, 0);
}

TEST(BenchArgs, EveryCollectiveName) {
  for (const char* name : {"allreduce", "bcast", "broadcast", "reduce", "allgather", "reducescatter", "reduce_scatter",
                           "alltoall", "gather", "scatter", "sendrecv", "barrier"}) {
    auto a = Parse({name});
    ASSERT_TRUE(a.ok()) << name;
    EXPECT_EQ(a->colls.size(), 1u) << name;
  }
  EXPECT_EQ(Parse({"broadcast"})->colls, std::vector<CollKind>{CollKind::kBcast});
  EXPECT_STREQ(CollName(CollKind::kReduceScatter), "reducescatter");
}

TEST(BenchArgs, Sendrecv) {
  auto a = Parse({"sendrecv", "-b", "8", "-e", "1M", "-f", "4", "-c", "1", "--device", "cuda", "--compare", "nccl"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->colls, std::vector<CollKind>{CollKind::kSendrecv});
  EXPECT_EQ(a->min_bytes, 8u);  // a collective: its sweep options apply
  EXPECT_TRUE(a->compare_nccl);
  EXPECT_STREQ(CollName(CollKind::kSendrecv), "sendrecv");  // the printed name is the one parsed
  EXPECT_EQ(ParseCollName("sendrecv"), CollKind::kSendrecv);
  EXPECT_FALSE(Parse({"sendrecv", "-W", "4"}).ok());  // p2p only
  EXPECT_FALSE(Parse({"send_recv"}).ok());
}

TEST(BenchArgs, PointToPointKeepsItsOptions) {
  auto a = Parse({"latency", "-b", "0", "-e", "1M", "-D", "50", "-W", "8"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->colls.empty());
  EXPECT_EQ(a->min_bytes, 0u);
  EXPECT_EQ(a->delay_us, 50);
  EXPECT_EQ(a->window, 8);
  EXPECT_EQ(Parse({"bw"})->max_bytes, 4u << 20);
}

TEST(BenchArgs, AggregatedCallsPerIteration) {
  auto a = Parse({"allreduce", "-m", "8"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->agg, 8);
  auto b = Parse({"allreduce", "--agg_iters", "4"});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->agg, 4);
  auto c = Parse({"allreduce"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->agg, 1) << "one call an iteration, no group, by default";
}

TEST(BenchArgs, RejectsBadArguments) {
  const std::vector<std::vector<std::string>> bad = {
      {},
      {"allreducee"},
      {"allreduce", "-d", "float8"},
      {"allreduce", "-o", "mulsum"},
      {"allreduce", "-f", "1"},
      {"allreduce", "-n", "0"},
      {"allreduce", "-b", "1M", "-e", "1K"},
      {"allreduce", "-b", "12Q"},
      {"allreduce", "-i", "0"},
      {"allreduce", "-c", "-1"},
      {"allreduce", "-r", "x"},
      {"allreduce", "-m", "0"},
      {"latency", "-m", "4"},  // collectives only
      {"allreduce", "-e"},
      {"allreduce", "-W", "4"},    // p2p only
      {"latency", "-d", "float"},  // collectives only
      {"latency", "--json", "x"},
      {"latency", "--device", "cuda"},  // collectives only
      {"bw", "--blocking"},
      {"allreduce", "--device", "gpu"},
      {"allreduce", "--device"},
      {"allreduce", "--blocking"},                                 // needs --device cuda
      {"allreduce", "--graph"},                                    // needs --device cuda
      {"latency", "--graph"},                                      // collectives only
      {"allreduce", "--device", "cuda", "--graph", "--blocking"},  // exclude each other
      {"allreduce", "--compare", "nccl"},                          // needs --device cuda
      {"allreduce", "--device", "host", "--compare", "nccl"},
      {"allreduce", "--device", "cuda", "--compare", "mpi"},
      {"allreduce", "--device", "cuda", "--nccl-lib", "/x/libnccl.so"},  // needs --compare nccl
      {"allreduce", "--device", "cuda", "--compare", "nccl", "--nccl-lib", ""},
  };
  for (const auto& words : bad) {
    std::string joined;
    for (const auto& w : words) joined += w + " ";
    EXPECT_FALSE(Parse(words).ok()) << joined;
  }
}

TEST(BenchArgs, ErrorsNameTheOption) {
  auto a = Parse({"allreduce", "-d", "float8"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("float8"), std::string::npos) << a.status().message();
}

TEST(BenchArgs, DeviceDefaultsToTheHost) {
  auto a = Parse({"allreduce"});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->device, BenchDevice::kHost);
  EXPECT_FALSE(a->blocking);
  EXPECT_FALSE(a->compare_nccl);
  EXPECT_EQ(a->nccl_lib, "libnccl.so.2");
}

TEST(BenchArgs, CudaCompareAndBlocking) {
  auto a = Parse({"allreduce", "--device", "cuda", "--blocking", "--compare", "nccl", "-b", "8", "-e", "8G",
                  "--nccl-lib", "/opt/nccl/lib/libnccl.so.2"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->device, BenchDevice::kCuda);
  EXPECT_TRUE(a->blocking);
  EXPECT_TRUE(a->compare_nccl);
  EXPECT_EQ(a->nccl_lib, "/opt/nccl/lib/libnccl.so.2");
  EXPECT_EQ(a->max_bytes, size_t{8} << 30);
  auto last = Parse({"reduce_scatter", "--device", "cuda", "--blocking"});  // a switch may come last
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_TRUE(last->blocking);
  EXPECT_TRUE(Parse({"bcast", "--device", "host"}).ok());
  EXPECT_FALSE(a->graph);
}

TEST(BenchArgs, GraphReplay) {
  auto a = Parse({"allreduce", "--device", "cuda", "--graph", "--compare", "nccl"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_TRUE(a->graph);
  EXPECT_FALSE(a->blocking);
  auto both = Parse({"allreduce", "--device", "cuda", "--blocking", "--graph"});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("exclude each other"), std::string::npos) << both.status().message();
}

TEST(BenchArgs, CompareErrorsSayWhatIsMissing) {
  auto a = Parse({"allreduce", "--compare", "nccl"});
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("--device cuda"), std::string::npos) << a.status().message();
}

TEST(BenchArgs, AllRunsEveryCollective) {
  auto a = Parse({"all", "--device", "cuda", "-e", "1M"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->colls.size(), 10u);
  EXPECT_EQ(a->colls.front(), CollKind::kAllreduce);
  EXPECT_EQ(a->colls[8], CollKind::kSendrecv);
  EXPECT_EQ(a->colls.back(), CollKind::kBarrier);
  EXPECT_EQ(a->min_bytes, 8u);  // the collectives' defaults
  EXPECT_TRUE(Parse({"all", "-d", "all", "-r", "all"}).ok());
  EXPECT_FALSE(Parse({"all", "-W", "4"}).ok());
}

TEST(Sweep, MultipliesByTheFactor) {
  auto a = Parse({"allreduce", "-b", "8", "-e", "64K"});
  const std::vector<size_t> sizes = SweepSizes(*a);
  ASSERT_EQ(sizes.size(), 14u);  // 8, 16, ..., 65536
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 65536u);
  for (size_t i = 1; i < sizes.size(); ++i) EXPECT_EQ(sizes[i], 2 * sizes[i - 1]);
}

TEST(Sweep, ZeroIsFollowedByOneAndMaxNeedNotBeHit) {
  auto a = Parse({"bcast", "-b", "0", "-e", "100", "-f", "3"});
  EXPECT_EQ(SweepSizes(*a), (std::vector<size_t>{0, 1, 3, 9, 27, 81}));
}

TEST(Sweep, AdditiveStep) {
  auto a = Parse({"alltoall", "-b", "0", "-e", "250", "-i", "100"});
  EXPECT_EQ(SweepSizes(*a), (std::vector<size_t>{0, 100, 200}));
  auto one = Parse({"alltoall", "-b", "4K", "-e", "4K"});
  EXPECT_EQ(SweepSizes(*one), (std::vector<size_t>{4096}));
}

TEST(Sweep, DefaultIterationsShrinkWithSize) {
  auto a = Parse({"allreduce"});
  EXPECT_EQ(DefaultIters(*a, 8), 1000);
  EXPECT_EQ(DefaultIters(*a, 64 << 10), 512);
  EXPECT_EQ(DefaultIters(*a, 64 << 20), 20);
  EXPECT_EQ(DefaultWarmup(*a, 8), 100);
  EXPECT_EQ(DefaultWarmup(*a, 64 << 20), 2);
  auto fixed = Parse({"allreduce", "-n", "5", "-w", "1"});
  EXPECT_EQ(DefaultIters(*fixed, 8), 5);
  EXPECT_EQ(DefaultWarmup(*fixed, 8), 1);
}

TEST(Names, TypesAndOpsRoundTrip) {
  for (int t = 0; t < grNumDataTypes; ++t) {
    const auto type = static_cast<grDataType_t>(t);
    EXPECT_EQ(ParseTypeName(TypeName(type)), type) << TypeName(type);
  }
  for (int o = 0; o < grNumOps; ++o) {
    const auto op = static_cast<grRedOp_t>(o);
    EXPECT_EQ(ParseOpName(OpName(op)), op) << OpName(op);
  }
  EXPECT_STREQ(TypeName(grFloat16), "half");
  EXPECT_STREQ(TypeName(grBfloat16), "bfloat16");
}

}  // namespace
