// Command-line arguments shared by gpurun-bench's subcommands, with
// nccl-tests' letters where they exist: -b min bytes, -e max bytes, -f factor,
// -n iterations, -w warm-up iterations. -d is for instruction counting
// (bench/p2p_callgrind.sh), not for timing.
#ifndef GPURUN_BENCH_BENCH_ARGS_H_
#define GPURUN_BENCH_BENCH_ARGS_H_

#include <cstddef>
#include <string>

struct BenchArgs {
  std::string command;  // "latency", "bw"
  size_t min_bytes = 0;
  size_t max_bytes = 4u << 20;
  size_t factor = 2;
  int iters = 0;     // 0: a size-dependent default
  int warmup = 0;    // 0: a size-dependent default
  int window = 64;   // bw: messages in flight per iteration
  int delay_us = 0;  // sleep before each wait for the peer, so the message is there when the wait starts
};

// Parses argv; on a bad argument prints why and the usage to stderr and returns false.
bool ParseBenchArgs(int argc, char** argv, BenchArgs* args);

// Sizes min, min*factor, ... up to max (0 is followed by 1).
size_t NextSize(size_t bytes, size_t factor);

#endif  // GPURUN_BENCH_BENCH_ARGS_H_
