// compute-sanitizer over small device-buffer matrix jobs (ctest label gpu):
//   gpurun -n 2 compute-sanitizer --tool memcheck|racecheck --error-exitcode 3
//          coll_matrix --device=cuda [--stream] ...
// (gpurun runs the first non-option word with the rest as its arguments, so
// every rank is a sanitizer that starts coll_matrix). memcheck finds
// out-of-bounds and misaligned device accesses and hardware exceptions,
// racecheck shared-memory hazards in the kernels (the ring collectives', on
// their automatic choice and forced onto LL and LL128; the tree's, the
// one-shot and the two-shot allreduce's, forced; the stream point-to-point kernel's under
// alltoall, gather, scatter). Besides the matrix's own
// checks, each rank's sanitizer must report "ERROR SUMMARY: 0 errors".
// Skipped, saying why, without a CUDA device or without compute-sanitizer.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>
#include <utility>

#include "tests/gpu/gpu_env.h"

namespace gpurun::gpu_test {
namespace {

std::vector<GpuCase> SanitizerCases() {
  std::vector<GpuCase> cases;
  // memcheck on both stream modes, sizes through every protocol's range.
  for (bool stream : {false, true}) {
    GpuCase g;
    g.tool = "memcheck";
    g.stream = stream;
    g.name = std::string("memcheck_2ranks_") + (stream ? "stream" : "null");
    g.colls = RingColls();
    g.slice = {"--types=int8,half,float", "--ops=sum,max", "--sizes=1,4099,65541,1048581", "--offsets=4",
               "--inplace=out,in"};
    g.limit_s = 600;
    cases.push_back(g);
  }
  // racecheck is slower: fewer sizes and types.
  GpuCase g;
  g.tool = "racecheck";
  g.name = "racecheck_2ranks_null";
  g.colls = RingColls();
  g.slice = {"--types=float", "--ops=sum", "--sizes=1,4099,65541", "--offsets=4", "--inplace=out,in"};
  g.limit_s = 600;
  cases.push_back(g);
  // The ring forced onto LL and LL128 (GPURUN_ALGO=ring GPURUN_PROTO=ll,
  // ll128): their lines, flags, warp-wide polls and the step barriers of
  // their primitives, misaligned buffers.
  for (const auto& [tool, proto] : {std::pair{"memcheck", matrix::Proto::kLL},
                                    {"racecheck", matrix::Proto::kLL},
                                    {"memcheck", matrix::Proto::kLL128},
                                    {"racecheck", matrix::Proto::kLL128}}) {
    GpuCase ll;
    ll.tool = tool;
    ll.variant = {matrix::Algo::kRing, proto};
    ll.name = std::string(tool) + "_2ranks_null_ring_" + (proto == matrix::Proto::kLL ? "ll" : "ll128");
    ll.colls = RingColls();
    ll.slice = {"--types=int8,float", "--ops=sum", "--sizes=1,4099,65541", "--offsets=4", "--inplace=out,in"};
    ll.limit_s = 600;
    cases.push_back(ll);
  }
  // Allreduce on the tree, forced onto each protocol (GPURUN_ALGO=tree), on
  // 4 ranks so a rank reduces two children's data: the two-peer primitives.
  for (const char* tool : {"memcheck", "racecheck"}) {
    for (matrix::Proto proto : {matrix::Proto::kLL, matrix::Proto::kLL128, matrix::Proto::kSimple}) {
      GpuCase t;
      t.tool = tool;
      t.ranks = 4;
      t.variant = {matrix::Algo::kTree, proto};
      t.name = std::string(tool) + "_4ranks_null_" + matrix::VariantName(t.variant);
      t.colls = {Coll::kAllreduce};
      t.slice = {"--types=int8,float", "--ops=sum", "--sizes=1,4099,65541,1048581", "--offsets=4", "--inplace=out,in"};
      t.limit_s = 600;
      cases.push_back(t);
    }
  }
  // Allreduce one-shot (GPURUN_ALGO=oneshot) on 2 ranks: calls of the batch
  // region (up to 64 KiB) and of the large one.
  for (const char* tool : {"memcheck", "racecheck"}) {
    GpuCase t;
    t.tool = tool;
    t.variant = {matrix::Algo::kOneShot, matrix::Proto::kLL};
    t.name = std::string(tool) + "_2ranks_null_" + matrix::VariantName(t.variant);
    t.colls = {Coll::kAllreduce};
    t.slice = {"--types=int8,float", "--ops=sum", "--sizes=1,4099,65541", "--offsets=4", "--inplace=out,in"};
    t.limit_s = 600;
    cases.push_back(t);
  }
  // Allreduce two-shot (GPURUN_ALGO=twoshot) on 3 ranks: parts of unequal
  // length, and with 1 element fewer lines than ranks (empty parts' tokens).
  for (const char* tool : {"memcheck", "racecheck"}) {
    GpuCase t;
    t.tool = tool;
    t.ranks = 3;
    t.variant = {matrix::Algo::kTwoShot, matrix::Proto::kLL};
    t.name = std::string(tool) + "_3ranks_null_" + matrix::VariantName(t.variant);
    t.colls = {Coll::kAllreduce};
    t.slice = {"--types=int8,float", "--ops=sum", "--sizes=1,4099,65541", "--offsets=4", "--inplace=out,in"};
    t.limit_s = 600;
    cases.push_back(t);
  }
  // The point-to-point collectives on a stream: the stream p2p kernel's
  // FIFOs and the own-block copy beside it (1 MiB and up).
  for (const char* tool : {"memcheck", "racecheck"}) {
    GpuCase p;
    p.tool = tool;
    p.stream = true;
    p.name = std::string(tool) + "_2ranks_stream_p2p";
    p.colls = P2pColls();
    p.slice = {"--types=int8,float", "--ops=sum", "--sizes=1,4099,1048581", "--offsets=0,4", "--inplace=out,in"};
    p.limit_s = 600;
    cases.push_back(p);
  }
  return cases;
}

class CollMatrixSanitizer : public GpuMatrixTest {};

TEST_P(CollMatrixSanitizer, NoErrors) {
  const matrix::MatrixJob job = Job();
  const std::string out = matrix::RunMatrixJob(job);
  // memcheck ends with "ERROR SUMMARY: 0 errors", racecheck with
  // "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
  const std::regex clean(
      R"((ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)))");
  const auto count = std::distance(std::sregex_iterator(out.begin(), out.end(), clean), std::sregex_iterator());
  EXPECT_EQ(count, job.ranks) << "every rank's compute-sanitizer must report 0 errors\n" << out;
  // The evidence on a pass too: the matrix's and every sanitizer's summary.
  const std::regex summary(R"((coll_matrix: \d+ checks[^\n]*|(ERROR|RACECHECK) SUMMARY[^\n]*))");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), summary); it != std::sregex_iterator(); ++it) {
    std::printf("  %s\n", it->str().c_str());
  }
}

INSTANTIATE_TEST_SUITE_P(Tools, CollMatrixSanitizer, ::testing::ValuesIn(SanitizerCases()), CaseName);

}  // namespace
}  // namespace gpurun::gpu_test
