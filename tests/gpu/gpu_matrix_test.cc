// The collective correctness matrix on device buffers (ctest label gpu;
// without a CUDA device every test is skipped, saying why). Each test is one
// coll_matrix --device=cuda job under gpurun, with the calls on the null
// stream ("null": complete on return) or on a stream of the program's own
// ("stream": synchronized before the checks):
//  - Supported: the collectives of the GPU ring path, every type and op, on
//    2 ranks (one per GPU when there are two) and 4 (two per GPU), in three
//    slices: small (counts 0, 1 and odd ones up to 64 KiB, offsets 0/4/8/12,
//    in and out of place), large (4 MiB + 7 B: pipelined over several steps)
//    and huge (70 MiB + 5 B: many loops over the channels' buffers; fewer
//    types and ops, to stay quick);
//  - Variants: the same under each forced (ring|tree) x (LL|LL128|Simple) on
//    2 ranks, up to 1 MiB + 5 B, judged by the device rejection table;
//  - P2p: the collectives over device point-to-point (allgatherv, alltoall(v),
//    gather(v), scatter(v)), checked exactly as on host buffers (grUnsupported
//    is a failure), on 2 and 4 ranks, both stream modes, small and large
//    (1 MiB + 5 B, 4 MiB + 7 B) slices;
//  - P2pVariants: the same under forced algorithms and protocols, which they
//    have none of: never rejected;
//  - Others: the barrier, which may answer grUnsupported (null stream only);
//  - OneShot, TwoShot: allreduce on the direct algorithms, forced, 2 and 4
//    (two-shot also 3) ranks, both stream modes, over CUDA IPC and host
//    memory, and both kinds taking turns (TwoShot mixed);
//  - RingLL, RingLL128: the ring collectives over LL / LL128, forced, 2 and
//    4 ranks, both stream modes, over CUDA IPC (and host memory for LL), up
//    to 4 MiB + 7 B;
//  - Tree: allreduce on the double binary tree over LL / LL128 / Simple,
//    forced, 2, 3 and 4 ranks, both stream modes, over CUDA IPC (and host
//    memory for LL and Simple), and on a reordered ring (tree positions are
//    ring positions);
//  - Graph: the ring collectives captured into CUDA graphs and replayed, and
//    allreduce forced onto the tree and onto two-shot;
//  - HostPath: the ring collectives with their FIFOs in host shared memory
//    (GPURUN_GPU_PATH=host), 2 and 4 ranks, stream, small and large slices;
//  - RingOrder: the ring collectives on a ring ordered 1,0 / 3,1,0,2
//    (GPURUN_GPU_RING), so ring positions differ from ranks;
//  - GpuMatrixCases: the tables above, checked without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/gpu/gpu_env.h"

namespace gpurun::gpu_test {
namespace {

using matrix::Algo;
using matrix::Proto;

struct Slice {
  const char* name;
  std::vector<std::string> flags;
  double limit_s;
};

const Slice kSmall = {
    "small",
    {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099,65541", "--offsets=0,4,8,12", "--inplace=out,in"},
    300};
const Slice kLarge = {
    "large", {"--types=all", "--ops=all", "--sizes=4194311", "--offsets=0,12", "--inplace=out,in"}, 600};
const Slice kHuge = {
    "huge",
    {"--types=int8,bfloat16,float,double", "--ops=sum,min", "--sizes=73400325", "--offsets=4", "--inplace=out,in"},
    600};

std::string ModeName(int ranks, bool stream) { return std::to_string(ranks) + "ranks_" + (stream ? "stream" : "null"); }

const Slice kP2pSmall = {
    "small", {"--types=all", "--sizes=0,1,7,1023,4099,65541", "--offsets=0,12", "--inplace=out,in"}, 300};
const Slice kP2pLarge = {
    "large", {"--types=int8,half,float,double", "--sizes=1048581,4194311", "--offsets=4", "--inplace=out,in"}, 600};

// `colls` in every slice, on 2 and 4 ranks, null and stream.
std::vector<GpuCase> ModeCases(const std::vector<Coll>& colls, std::initializer_list<const Slice*> slices) {
  std::vector<GpuCase> cases;
  for (const Slice* slice : slices) {
    for (int ranks : {2, 4}) {
      for (bool stream : {false, true}) {
        GpuCase g;
        g.name = ModeName(ranks, stream) + "_" + slice->name;
        g.ranks = ranks;
        g.stream = stream;
        g.colls = colls;
        g.slice = slice->flags;
        g.limit_s = slice->limit_s;
        cases.push_back(g);
      }
    }
  }
  return cases;
}

std::vector<GpuCase> SupportedCases() { return ModeCases(RingColls(), {&kSmall, &kLarge, &kHuge}); }
std::vector<GpuCase> P2pCases() { return ModeCases(P2pColls(), {&kP2pSmall, &kP2pLarge}); }

std::vector<GpuCase> VariantCases() {
  std::vector<GpuCase> cases;
  for (Algo a : {Algo::kRing, Algo::kTree}) {
    for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple}) {
      GpuCase g;
      g.variant = {a, p};
      g.name = "2ranks_null_" + matrix::VariantName(g.variant);
      g.colls = RingColls();
      g.slice = {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099,65541,1048581", "--offsets=0,12",
                 "--inplace=out,in"};
      g.limit_s = 600;
      cases.push_back(g);
    }
  }
  return cases;
}

// The direct allreduce algorithms, forced (GPURUN_ALGO=oneshot or twoshot,
// GPURUN_PROTO=ll): every type and op, sizes up to 262147 elements (2 MiB of
// doubles, within the default GPURUN_GPU_ONESHOT_BYTES), misaligned
// buffers, on 2 and 4 ranks, null and stream, over CUDA IPC and through
// host memory. Two-shot also on 3 ranks (parts of unequal length; with
// fewer lines than ranks, empty parts and their tokens), and "mixed":
// GPURUN_ALGO=oneshot,twoshot on 4 ranks, where the tuner takes one-shot
// for the small sizes and two-shot for the large (gpu_tuner_test checks
// that premise), so calls of both kinds take turns over the scratch they
// share.
std::vector<GpuCase> DirectCases(Algo algo) {
  const bool two = algo == Algo::kTwoShot;
  std::vector<std::string> wheres = {"", "_hostpath"};
  if (two) wheres.push_back("_mixed");
  std::vector<GpuCase> cases;
  for (const std::string& where : wheres) {
    const bool host = where == "_hostpath";
    const bool mixed = where == "_mixed";
    for (int ranks : {2, 3, 4}) {
      for (bool stream : {false, true}) {
        if ((ranks == 3 && !two) || ((host || mixed) && !stream) || (mixed && ranks != 4)) continue;
        GpuCase g;
        g.variant = {mixed ? Algo::kAuto : algo, Proto::kLL};
        g.name = ModeName(ranks, stream) + where;
        g.ranks = ranks;
        g.stream = stream;
        g.colls = {Coll::kAllreduce};
        g.slice = {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099,16411,262147", "--offsets=0,4,12",
                   "--inplace=out,in"};
        g.limit_s = 300;
        if (host) g.env = {{"GPURUN_GPU_PATH", "host"}};
        if (mixed) g.env = {{"GPURUN_ALGO", "oneshot,twoshot"}};
        cases.push_back(g);
      }
    }
  }
  return cases;
}

// The ring over LL or LL128, forced (GPURUN_ALGO=ring GPURUN_PROTO=ll or
// ll128): every ring collective, type and op, up to 4 MiB + 7 B (many steps
// per channel, so every FIFO slot is reused), misaligned buffers, on 2 and 4
// ranks, null and stream, over CUDA IPC and (LL; LL128 needs NVLink)
// through host memory.
std::vector<GpuCase> RingProtoCases(Proto proto) {
  std::vector<GpuCase> cases;
  for (bool host : {false, true}) {
    if (host && proto == Proto::kLL128) continue;
    for (int ranks : {2, 4}) {
      for (bool stream : {false, true}) {
        if (host && !stream) continue;
        GpuCase g;
        g.variant = {Algo::kRing, proto};
        g.name = ModeName(ranks, stream) + (host ? "_hostpath" : "");
        g.ranks = ranks;
        g.stream = stream;
        g.colls = RingColls();
        g.slice = {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099,65541,1048581,4194311", "--offsets=0,4,12",
                   "--inplace=out,in"};
        g.limit_s = 600;
        if (host) g.env = {{"GPURUN_GPU_PATH", "host"}};
        cases.push_back(g);
      }
    }
  }
  return cases;
}

// Allreduce on the double binary tree, forced (GPURUN_ALGO=tree and each
// protocol): every type and op, up to 4 MiB + 7 B, misaligned buffers, on 2,
// 3 (odd: tree 1 shifted, not mirrored) and 4 ranks (rank 2 of tree 0 has two
// children), null and stream, over CUDA IPC and (LL, Simple) host memory,
// and on 4 ranks with the ring (so the tree positions) reordered.
std::vector<GpuCase> TreeCases(Proto proto) {
  std::vector<GpuCase> cases;
  for (const char* where : {"", "_hostpath", "_reordered"}) {
    const bool host = std::string(where) == "_hostpath";
    const bool reordered = std::string(where) == "_reordered";
    if (host && proto == Proto::kLL128) continue;
    for (int ranks : {2, 3, 4}) {
      for (bool stream : {false, true}) {
        if ((host || reordered) && !stream) continue;
        if (reordered && ranks != 4) continue;
        GpuCase g;
        g.variant = {Algo::kTree, proto};
        g.name = ModeName(ranks, stream) + where;
        g.ranks = ranks;
        g.stream = stream;
        g.colls = {Coll::kAllreduce};
        g.slice = {"--types=all", "--ops=all", "--sizes=0,1,7,1023,4099,65541,1048581,4194311", "--offsets=0,4,12",
                   "--inplace=out,in"};
        g.limit_s = 600;
        if (host) g.env = {{"GPURUN_GPU_PATH", "host"}};
        if (reordered) g.env = {{"GPURUN_GPU_RING", "3,1,0,2"}};
        cases.push_back(g);
      }
    }
  }
  return cases;
}

// The ring collectives and the point-to-point ones with every pair's FIFOs
// in host shared memory (GPURUN_GPU_PATH=host: the path of GPUs without peer
// access), on 2 and 4 ranks, stream-ordered, small and large slices.
std::vector<GpuCase> HostPathCases() {
  std::vector<GpuCase> cases;
  for (const Slice* slice : {&kSmall, &kLarge}) {
    for (int ranks : {2, 4}) {
      GpuCase g;
      g.name = ModeName(ranks, true) + "_" + slice->name;
      g.ranks = ranks;
      g.stream = true;
      g.colls = RingColls();
      g.slice = slice->flags;
      g.limit_s = slice->limit_s;
      g.env = {{"GPURUN_GPU_PATH", "host"}};
      cases.push_back(g);
    }
  }
  return cases;
}

// Every call captured into a CUDA graph and launched from it (coll_matrix
// --graph: twice out of place, the second must give the same result): the
// ring collectives on the tuner's choices (one-shot, ring LL / LL128 /
// Simple across the sizes), every type and op, on 2 and 4 ranks.
std::vector<GpuCase> GraphCases() {
  std::vector<GpuCase> cases;
  for (int ranks : {2, 4}) {
    GpuCase g;
    g.name = ModeName(ranks, true) + "_graph";
    g.ranks = ranks;
    g.stream = true;
    g.colls = RingColls();
    g.slice = {"--types=all",    "--ops=all",        "--sizes=0,1,7,1023,4099,65541,1048581,4194311",
               "--offsets=0,12", "--inplace=out,in", "--graph"};
    g.limit_s = 600;
    cases.push_back(g);
  }
  // Allreduce forced onto the tree (its protocol the tuner's) and onto
  // two-shot, captured and replayed the same way: the tree's step counters
  // and the direct algorithms' call counter live on the device, so a replay
  // continues where the last call left them.
  for (const Algo algo : {Algo::kTree, Algo::kTwoShot}) {
    GpuCase g;
    g.variant = {algo, algo == Algo::kTwoShot ? Proto::kLL : Proto::kAuto};
    g.name = std::string("4ranks_stream_graph_") + matrix::AlgoName(algo);
    g.ranks = 4;
    g.stream = true;
    g.colls = {Coll::kAllreduce};
    g.slice = {"--types=int8,half,float,double",
               "--ops=all",
               "--sizes=0,1,7,1023,4099,65541,262147",
               "--offsets=0,12",
               "--inplace=out,in",
               "--graph"};
    g.limit_s = 300;
    cases.push_back(g);
  }
  return cases;
}

// The ring collectives on a ring in another order than the ranks'
// (GPURUN_GPU_RING): positions and ranks differ, so allgather and
// reduce_scatter blocks and broadcast/reduce roots go through the mapping.
std::vector<GpuCase> RingOrderCases() {
  std::vector<GpuCase> cases;
  for (const auto& [ranks, order] : {std::pair<int, const char*>{2, "1,0"}, {4, "3,1,0,2"}}) {
    GpuCase g;
    g.name = ModeName(ranks, true) + "_small";
    g.ranks = ranks;
    g.stream = true;
    g.colls = RingColls();
    g.slice = {"--types=int8,half,float,int64", "--ops=all", "--sizes=0,1,7,1023,4099,65541,1048581", "--offsets=0,12",
               "--inplace=out,in"};
    g.env = {{"GPURUN_GPU_RING", order}};
    cases.push_back(g);
  }
  return cases;
}

// Forcing an algorithm or protocol the ring path rejects leaves the
// point-to-point collectives running.
std::vector<GpuCase> P2pVariantCases() {
  std::vector<GpuCase> cases;
  for (matrix::Variant v : {matrix::Variant{Algo::kTree, Proto::kLL}, matrix::Variant{Algo::kTree, Proto::kLL128},
                            matrix::Variant{Algo::kOneShot, Proto::kSimple}}) {
    GpuCase g;
    g.variant = v;
    g.name = "2ranks_null_" + matrix::VariantName(v);
    g.colls = P2pColls();
    g.slice = {"--types=int8,half,double", "--sizes=0,7,4099,65541", "--offsets=0,12", "--inplace=out,in"};
    cases.push_back(g);
  }
  return cases;
}

// GPURUN_FIRST_STEP just before LL's clean-up steps (2^31 - 8 ..) and just
// before the 32-bit flag wraps (2^32): every connection of the ring and the
// tree starts there, its LL FIFOs holding the flags coll/ll_start.h gives
// (the stale match a missing clean-up would leave), so a few hundred calls
// cross both. The ring with each protocol, through CUDA IPC and host memory,
// and the tree over LL.
std::vector<GpuCase> FirstStepCases() {
  const std::string before_clean = std::to_string((uint64_t{1} << 31) - 20);
  const std::string before_wrap = std::to_string((uint64_t{1} << 32) - 20);
  struct Row {
    Algo algo;
    Proto proto;
    int ranks;
    bool host;
    const std::string* first;
  };
  const Row rows[] = {
      {Algo::kRing, Proto::kLL, 2, false, &before_clean},    {Algo::kRing, Proto::kLL, 2, false, &before_wrap},
      {Algo::kRing, Proto::kLL, 2, true, &before_wrap},      {Algo::kRing, Proto::kLL128, 2, false, &before_wrap},
      {Algo::kRing, Proto::kSimple, 2, false, &before_wrap}, {Algo::kTree, Proto::kLL, 3, false, &before_wrap}};
  std::vector<GpuCase> cases;
  for (const Row& r : rows) {
    GpuCase g;
    g.variant = {r.algo, r.proto};
    g.name = ModeName(r.ranks, true) + "_" + matrix::VariantName(g.variant) + (r.host ? "_hostpath" : "") + "_from" +
             *r.first;
    g.ranks = r.ranks;
    g.stream = true;
    g.colls = r.algo == Algo::kTree ? std::vector<Coll>{Coll::kAllreduce} : RingColls();
    g.slice = {"--types=int32,float", "--ops=sum,max", "--sizes=0,1,7,1023,4099,65541", "--offsets=0,4",
               "--inplace=out,in"};
    g.env = {{"GPURUN_FIRST_STEP", *r.first}};
    if (r.host) g.env.push_back({"GPURUN_GPU_PATH", "host"});
    cases.push_back(g);
  }
  return cases;
}

// The GPU ring across simulated hosts (gpurun --nodes 2; UCX on loopback):
// 2 ranks (both hops NET) and 4 ranks (each rank one NET hop and one over
// CUDA IPC), LL and Simple forced and the tuner's choice, null and stream;
// sizes up to 1 MiB + 5 elements of doubles, so Simple steps span slots and
// slices. Also captured in CUDA graphs, LL from just before its flag wraps,
// and the collectives that run over point-to-point.
std::vector<GpuCase> NetCases() {
  struct Row {
    matrix::Variant variant;
    int ranks;
    bool stream;
  };
  std::vector<Row> rows;
  for (const matrix::Variant& v :
       {matrix::Variant{Algo::kRing, Proto::kLL}, matrix::Variant{Algo::kRing, Proto::kSimple}, matrix::Variant{}}) {
    for (int ranks : {2, 4}) {
      for (bool stream : {false, true}) rows.push_back({v, ranks, stream});
    }
  }
  std::vector<GpuCase> cases;
  for (const Row& r : rows) {
    GpuCase g;
    g.variant = r.variant;
    g.name = ModeName(r.ranks, r.stream) + "_2nodes_" + matrix::VariantName(g.variant);
    g.ranks = r.ranks;
    g.nodes = 2;
    g.stream = r.stream;
    g.colls = RingColls();
    g.slice = {"--types=int8,int32,half,float,double", "--ops=sum,max", "--sizes=0,1,7,1023,4099,65541,1048581",
               "--offsets=0,12", "--inplace=out,in"};
    g.limit_s = 600;
    g.env = {{"UCX_NET_DEVICES", "lo"}};
    cases.push_back(g);
  }
  // Captured in CUDA graphs and replayed: the proxy moves a replay's steps
  // without a launch to wake it.
  for (int ranks : {2, 4}) {
    GpuCase g;
    g.name = ModeName(ranks, true) + "_2nodes_graph";
    g.ranks = ranks;
    g.nodes = 2;
    g.stream = true;
    g.colls = RingColls();
    g.slice = {"--types=int8,half,float,double",
               "--ops=sum,max",
               "--sizes=0,1,7,1023,4099,65541,1048581",
               "--offsets=0,12",
               "--inplace=out,in",
               "--graph"};
    g.limit_s = 600;
    g.env = {{"UCX_NET_DEVICES", "lo"}};
    cases.push_back(g);
  }
  // The collectives over point-to-point (alltoall(v), gather(v),
  // scatter(v), allgatherv): host copies over UCX on the null stream, NET
  // connections on a stream.
  for (int ranks : {2, 4}) {
    for (bool stream : {false, true}) {
      GpuCase g;
      g.name = ModeName(ranks, stream) + "_2nodes_p2p";
      g.ranks = ranks;
      g.nodes = 2;
      g.stream = stream;
      g.colls = P2pColls();
      g.slice = kP2pSmall.flags;
      g.limit_s = 300;
      g.env = {{"UCX_NET_DEVICES", "lo"}};
      cases.push_back(g);
    }
  }
  GpuCase wrap;
  wrap.variant = {Algo::kRing, Proto::kLL};
  wrap.name = "2ranks_stream_2nodes_ring_ll_from" + std::to_string((uint64_t{1} << 32) - 20);
  wrap.ranks = 2;
  wrap.nodes = 2;
  wrap.stream = true;
  wrap.colls = RingColls();
  wrap.slice = {"--types=int32,float", "--ops=sum,max", "--sizes=0,1,7,1023,4099,65541", "--offsets=0,4",
                "--inplace=out,in"};
  wrap.env = {{"UCX_NET_DEVICES", "lo"}, {"GPURUN_FIRST_STEP", std::to_string((uint64_t{1} << 32) - 20)}};
  cases.push_back(wrap);
  return cases;
}

// A barrier has no buffers to be device ones: on a stream gpurun.h does not
// say whether it is stream-ordered or invalid usage, so only the null stream.
std::vector<GpuCase> OtherCases() {
  std::vector<GpuCase> cases;
  for (int ranks : {2, 4}) {
    GpuCase g;
    g.name = ModeName(ranks, false);
    g.ranks = ranks;
    g.colls = OtherColls();
    g.may_be_unsupported = true;
    cases.push_back(g);
  }
  return cases;
}

// The case tables themselves (no GPU needed): every collective but the
// barrier is required somewhere, the point-to-point ones on both stream modes
// and rank counts, and no case lets a required collective be unsupported.
TEST(GpuMatrixCases, RequiredCollectivesAreNeverAllowedUnsupported) {
  std::vector<GpuCase> all = SupportedCases();
  for (const auto& more : {VariantCases(), P2pCases(), P2pVariantCases(), OtherCases()}) {
    all.insert(all.end(), more.begin(), more.end());
  }
  const std::vector<Coll> others = OtherColls();
  std::set<std::string> required_modes;
  for (const GpuCase& g : all) {
    for (Coll c : g.colls) {
      const bool other = std::find(others.begin(), others.end(), c) != others.end();
      EXPECT_TRUE(other || !g.may_be_unsupported) << g.name << ": " << matrix::CollName(c);
      if (!g.may_be_unsupported)
        required_modes.insert(std::string(matrix::CollName(c)) + " " + ModeName(g.ranks, g.stream));
    }
  }
  for (Coll c : RequiredColls()) {
    for (int ranks : {2, 4}) {
      for (bool stream : {false, true}) {
        EXPECT_EQ(required_modes.count(std::string(matrix::CollName(c)) + " " + ModeName(ranks, stream)), 1u)
            << matrix::CollName(c) << " is not required on " << ModeName(ranks, stream);
      }
    }
  }
  EXPECT_EQ(others, std::vector<Coll>{Coll::kBarrier});
}

class CollMatrixGpu : public GpuMatrixTest {};

// Ring Simple rounds an edge's step up to a whole chunk when the chunk
// changes (1 step for reduce, 4 for allgather and reducescatter); the
// receiver must return the skipped steps' credit (prims_simple.cuh). Four
// reduces of 360000 bytes, one with each root, on one channel: the GPU
// planner's chunk is then its 128 KiB minimum (gpu_launch.cc: a quarter of
// the call is less), so 3 chunks of one step each, and every edge is used in
// 3 of the 4 reduces: 9 steps on. Then an allgather or reducescatter of the
// same count starts at step 12: without the credit the head stays at 9 and
// the second chunk's sends (from step 16) wait for a head of 10 while every
// rank holds the slices it received, a deadlock (the host ring had it too:
// HostCollRounding in the unit tests). GPURUN_TIMEOUT turns a hang into a
// failure naming the wait.
std::vector<GpuCase> RoundingCases() {
  std::vector<GpuCase> cases;
  for (Coll last : {Coll::kAllgather, Coll::kReducescatter}) {
    GpuCase g;
    g.variant = {Algo::kRing, Proto::kSimple};
    g.name = ModeName(4, true) + "_rounding_reduce_then_" + matrix::CollName(last);
    g.ranks = 4;
    g.stream = true;
    g.colls = {Coll::kReduce, last};
    g.slice = {"--types=int32", "--ops=max", "--sizes=360000", "--offsets=0", "--inplace=out", "--roots=all"};
    g.env = {{"GPURUN_GPU_NCHANNELS", "1"}, {"GPURUN_TIMEOUT", "60"}};
    g.limit_s = 300;
    cases.push_back(g);
  }
  return cases;
}

TEST_P(CollMatrixGpu, DeviceBuffers) { matrix::RunMatrixJob(Job()); }

INSTANTIATE_TEST_SUITE_P(Supported, CollMatrixGpu, ::testing::ValuesIn(SupportedCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Variants, CollMatrixGpu, ::testing::ValuesIn(VariantCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(P2p, CollMatrixGpu, ::testing::ValuesIn(P2pCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(P2pVariants, CollMatrixGpu, ::testing::ValuesIn(P2pVariantCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Others, CollMatrixGpu, ::testing::ValuesIn(OtherCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(OneShot, CollMatrixGpu, ::testing::ValuesIn(DirectCases(Algo::kOneShot)), CaseName);
INSTANTIATE_TEST_SUITE_P(TwoShot, CollMatrixGpu, ::testing::ValuesIn(DirectCases(Algo::kTwoShot)), CaseName);
INSTANTIATE_TEST_SUITE_P(RingLL, CollMatrixGpu, ::testing::ValuesIn(RingProtoCases(Proto::kLL)), CaseName);
INSTANTIATE_TEST_SUITE_P(RingLL128, CollMatrixGpu, ::testing::ValuesIn(RingProtoCases(Proto::kLL128)), CaseName);
INSTANTIATE_TEST_SUITE_P(TreeLL, CollMatrixGpu, ::testing::ValuesIn(TreeCases(Proto::kLL)), CaseName);
INSTANTIATE_TEST_SUITE_P(TreeLL128, CollMatrixGpu, ::testing::ValuesIn(TreeCases(Proto::kLL128)), CaseName);
INSTANTIATE_TEST_SUITE_P(TreeSimple, CollMatrixGpu, ::testing::ValuesIn(TreeCases(Proto::kSimple)), CaseName);
INSTANTIATE_TEST_SUITE_P(Graph, CollMatrixGpu, ::testing::ValuesIn(GraphCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(HostPath, CollMatrixGpu, ::testing::ValuesIn(HostPathCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(RingOrder, CollMatrixGpu, ::testing::ValuesIn(RingOrderCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(FirstStep, CollMatrixGpu, ::testing::ValuesIn(FirstStepCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Net, CollMatrixGpu, ::testing::ValuesIn(NetCases()), CaseName);
INSTANTIATE_TEST_SUITE_P(Rounding, CollMatrixGpu, ::testing::ValuesIn(RoundingCases()), CaseName);

}  // namespace
}  // namespace gpurun::gpu_test
