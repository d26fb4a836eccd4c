// gpurun-bench: the project's benchmark driver. Run it under gpurun:
//   gpurun -n 2 build/bin/gpurun-bench latency
//   gpurun -n 2 build/bin/gpurun-bench bw -b 64K -e 4M
#include <cstdio>

#include "bench/bench_args.h"
#include "bench/p2p_bench.h"
#include "gpurun/gpurun.h"

int main(int argc, char** argv) {
  BenchArgs args;
  if (!ParseBenchArgs(argc, argv, &args)) return 2;
  if (grInit(&argc, &argv) != grSuccess) {
    std::fprintf(stderr, "gpurun-bench: grInit: %s\n", grGetLastErrorMessage());
    return 1;
  }
  int rank = 0, size = 0;
  grCommRank(grCommWorld(), &rank);
  grCommSize(grCommWorld(), &size);
  if (size < 2) {
    std::fprintf(stderr, "gpurun-bench: %s needs at least 2 ranks (run it under gpurun -n 2)\n", args.command.c_str());
    grFinalize();
    return 2;
  }
  const int rc = args.command == "latency" ? RunLatency(args, rank) : RunBandwidth(args, rank);
  if (grFinalize() != grSuccess) return 1;
  return rc;
}
