// gpurun-bench: the project's benchmark driver. Run it under gpurun:
//   gpurun -n 2 build/bin/gpurun-bench latency
//   gpurun -n 2 build/bin/gpurun-bench bw -b 64K -e 4M
//   gpurun -n 4 build/bin/gpurun-bench allreduce -b 8 -e 64M -d all -o sum -c 1
//   gpurun -n 2 build/bin/gpurun-bench allreduce --device cuda --compare nccl -b 8 -e 1G
#include <cstdio>

#include "bench/bench_args.h"
#include "bench/bench_target.h"
#include "bench/coll_bench.h"
#include "bench/p2p_bench.h"
#include "gpurun/gpurun.h"

int main(int argc, char** argv) {
  auto parsed = ParseBenchArgs(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "gpurun-bench: %s\n", parsed.status().message().c_str());
    PrintBenchUsage();
    return 2;
  }
  const BenchArgs& args = *parsed;
  // Before grInit: the GPU is chosen before anything is allocated on it.
  auto setup = PrepareDevice(args);
  if (!setup.ok()) {
    std::fprintf(stderr, "gpurun-bench: %s\n", setup.status().message().c_str());
    return 2;
  }
  if (grInit(&argc, &argv) != grSuccess) {
    std::fprintf(stderr, "gpurun-bench: grInit: %s\n", grGetLastErrorMessage());
    return 1;
  }
  int rank = 0, size = 0;
  grCommRank(grCommWorld(), &rank);
  grCommSize(grCommWorld(), &size);
  int rc = 0;
  if (!args.colls.empty()) {
    rc = RunCollBench(args, *setup, rank, size);
  } else if (size < 2) {
    std::fprintf(stderr, "gpurun-bench: %s needs at least 2 ranks (run it under gpurun -n 2)\n", args.command.c_str());
    rc = 2;
  } else {
    rc = args.command == "latency" ? RunLatency(args, rank) : RunBandwidth(args, rank);
  }
  if (grFinalize() != grSuccess) return 1;
  return rc;
}
