// gpurun-bench argument parsing (see bench_args.h).
#include "bench/bench_args.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "runtime/base/parse.h"

namespace {

void Usage() {
  std::fprintf(stderr,
               "usage: gpurun -n 2 gpurun-bench latency|bw [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP] "
               "[-W WINDOW] [-d USEC]\n"
               "  latency: one-way time of a ping-pong between ranks 0 and 1 (osu_latency)\n"
               "  bw:      streaming bandwidth from rank 0 to rank 1, WINDOW messages in flight (osu_bw)\n"
               "  sizes accept units (4K, 1M); -d sleeps USEC before each wait for the peer (for instruction\n"
               "  counts under callgrind, where the message is then already there; not for timing).\n");
}

bool Fail(const std::string& why) {
  std::fprintf(stderr, "gpurun-bench: %s\n", why.c_str());
  Usage();
  return false;
}

}  // namespace

bool ParseBenchArgs(int argc, char** argv, BenchArgs* args) {
  if (argc < 2) return Fail("missing command");
  args->command = argv[1];
  if (args->command != "latency" && args->command != "bw") return Fail("unknown command '" + args->command + "'");
  for (int i = 2; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) return Fail("option " + std::string(flag) + " needs a value");
    const char* value = argv[++i];
    if (flag == "-b" || flag == "-e") {
      auto size = gpurun::ParseSize(value);
      if (!size.ok()) return Fail(std::string(flag) + ": " + size.status().message());
      (flag == "-b" ? args->min_bytes : args->max_bytes) = static_cast<size_t>(*size);
      continue;
    }
    auto number = gpurun::ParseInt(value);
    if (!number.ok() || *number < 1) return Fail(std::string(flag) + " needs a positive integer, not '" + value + "'");
    if (flag == "-f") {
      if (*number < 2) return Fail("-f must be at least 2");
      args->factor = static_cast<size_t>(*number);
    } else if (flag == "-n") {
      args->iters = static_cast<int>(*number);
    } else if (flag == "-w") {
      args->warmup = static_cast<int>(*number);
    } else if (flag == "-W") {
      args->window = static_cast<int>(*number);
    } else if (flag == "-d") {
      args->delay_us = static_cast<int>(*number);
    } else {
      return Fail("unknown option " + std::string(flag));
    }
  }
  if (args->min_bytes > args->max_bytes) return Fail("-b is larger than -e");
  return true;
}

size_t NextSize(size_t bytes, size_t factor) { return bytes == 0 ? 1 : bytes * factor; }
