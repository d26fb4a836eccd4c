// gpurun-tune-probe: measures what the host tuner's tables are built from,
// before the collective executor exists: one shared-memory hop per protocol
// between two processes, through a FIFO of the real wire formats
// (coll/wire_format.h: LLLine, LL128Line, StepCounter, 8 steps of the host
// executor's per-protocol FIFO, coll/host/fifo_sizes.h), plus single-process
// memcpy and float-sum bandwidth.
//
//   gpurun-tune-probe [--repeats N] [--max-bytes B]
//
// A hop is timed as half a ping-pong of a message of each size, for each
// protocol: LL and LL128 receivers that chase the sender line by line or
// wait for the step's last line first (-last), receivers that reduce floats
// instead of copying (-sum). An exchange (both ranks send and receive at
// once, step by step, as a two-rank ring step) checks the model's count of
// two sides per byte per rank. Every figure is the minimum over N repeats
// (the machine is shared: the minimum is the least disturbed run); each table
// ends with a fit: latency = the 8-byte figure, per-side bandwidth = sides *
// bytes / (t(largest) - t(8 B)). coll/tuner/tuner_tables_host.cc records it.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "bench/tune/probe_fifo.h"

namespace gpurun::coll::probe {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The measured variants: a protocol and the endpoints' mode.
struct Variant {
  const char* name;
  Protocol proto;
  EndpointMode mode;
};
constexpr Variant kVariants[] = {
    {"ll", Protocol::kLL, {}},
    {"ll-last", Protocol::kLL, {.last_line_first = true}},
    {"ll-sum", Protocol::kLL, {.reduce = true}},
    {"ll128", Protocol::kLL128, {}},
    {"ll128-last", Protocol::kLL128, {.last_line_first = true}},
    {"ll128-sum", Protocol::kLL128, {.reduce = true}},
    {"simple", Protocol::kSimple, {}},
    {"simple-sum", Protocol::kSimple, {.reduce = true}},
};

// Shared by both processes: two FIFOs (0 -> 1 and 1 -> 0), reset between
// variants, a barrier, and two flags on their own lines for the raw ping-pong.
struct Shared {
  StepCounter arrived[2];
  StepCounter flag[2];
  Fifo fifo[2];
};

// Back to step 0 with clean lines; between two barriers, by one rank.
void ResetFifo(Fifo& fifo) {
  for (ProtoFifo& state : fifo.state) {
    state.head.clear();
    state.tail.clear();
  }
  std::memset(static_cast<void*>(fifo.ll), 0, sizeof(fifo.ll));
  std::memset(static_cast<void*>(fifo.ll128), 0, sizeof(fifo.ll128));
}

struct Options {
  int repeats = 7;
  uint64_t max_bytes = uint64_t{16} << 20;
};

// Both processes run the same schedule. Ping-pong (`exchange` false): rank 0
// sends, rank 1 sends back; the figure is half the round trip, one hop.
// Exchange: both send and receive the message at once, step by step, as a
// ring step with two ranks does; the figure is the whole exchange. Returns,
// on rank 0, the minimum over the repeats in microseconds per size.
std::vector<double> Measure(Shared& shared, int rank, const Variant& v, bool exchange,
                            const std::vector<uint64_t>& sizes, const Options& options, std::vector<char>& src,
                            std::vector<char>& dst) {
  std::vector<double> best(sizes.size(), 1e30);
  const char* peer = rank == 0 ? "rank 1" : "rank 0";
  Endpoint send(shared.fifo[rank], v.proto, peer, v.mode);
  Endpoint recv(shared.fifo[1 - rank], v.proto, peer, v.mode);
  auto once = [&](uint64_t bytes) {
    if (exchange) {
      for (uint64_t done = 0; done < bytes; done += send.StepData()) {
        const uint64_t n = std::min(send.StepData(), bytes - done);
        send.SendStep(src.data() + done, n);
        recv.RecvStep(dst.data() + done, n);
      }
    } else if (rank == 0) {
      send.Send(src.data(), bytes);
      recv.Recv(dst.data(), bytes);
    } else {
      recv.Recv(dst.data(), bytes);
      send.Send(src.data(), bytes);
    }
  };
  for (int rep = 0; rep < options.repeats; ++rep) {
    for (size_t i = 0; i < sizes.size(); ++i) {
      const uint64_t bytes = sizes[i];
      // About 20 ms per measurement, at least 10 rounds.
      const int iters = static_cast<int>(std::clamp<uint64_t>((uint64_t{20} << 20) / (bytes + 1024), 10, 20000));
      for (int warm = 0; warm < 2; ++warm) once(bytes);
      const Clock::time_point start = Clock::now();
      for (int it = 0; it < iters; ++it) once(bytes);
      const double us = SecondsSince(start) * 1e6 / iters / (exchange ? 1 : 2);
      best[i] = std::min(best[i], us);
    }
  }
  return best;
}

void PrintTable(const char* title, const std::vector<uint64_t>& sizes, const std::vector<const char*>& names,
                const std::vector<std::vector<double>>& results, double sides) {
  std::printf("# %s, microseconds\n%12s", title, "bytes");
  for (const char* name : names) std::printf(" %12s", name);
  std::printf("\n");
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::printf("%12llu", static_cast<unsigned long long>(sizes[i]));
    for (const auto& r : results) std::printf(" %12.3f", r[i]);
    std::printf("\n");
  }
  const size_t last = sizes.size() - 1;
  for (size_t v = 0; v < names.size(); ++v) {
    const double bw = sides * static_cast<double>(sizes[last]) / ((results[v][last] - results[v][0]) * 1e3);
    std::printf("fit %-11s: latency %.3f us, per-side bandwidth %.2f GB/s\n", names[v], results[v][0], bw);
  }
}

// Half the round trip of one 8-byte store seen by the other process (the
// floor under every hop), microseconds, best of `repeats` runs of 100000.
double RawPingPong(Shared& shared, int rank, int repeats) {
  double best = 1e30;
  const char* peer = rank == 0 ? "rank 1" : "rank 0";
  uint64_t value = shared.flag[0].load();
  for (int rep = 0; rep < repeats; ++rep) {
    constexpr int kIters = 100000;
    const Clock::time_point start = Clock::now();
    for (int it = 0; it < kIters; ++it) {
      if (rank == 0) {
        shared.flag[0].post(++value);
        WaitFor([&] { return shared.flag[1].load() == value; }, "raw pong", peer);
      } else {
        ++value;
        WaitFor([&] { return shared.flag[0].load() == value; }, "raw ping", peer);
        shared.flag[1].post(value);
      }
    }
    best = std::min(best, SecondsSince(start) * 1e6 / kIters / 2);
  }
  return best;
}

// Single-process bandwidth of `op` over `bytes`, GB/s, best of `repeats`.
template <typename Op>
double LocalBandwidth(uint64_t bytes, int repeats, Op op) {
  double best = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    const int iters = static_cast<int>(std::max<uint64_t>(3, (uint64_t{256} << 20) / bytes));
    op();
    const Clock::time_point start = Clock::now();
    for (int it = 0; it < iters; ++it) op();
    best = std::max(best, static_cast<double>(bytes) * iters / SecondsSince(start) / 1e9);
  }
  return best;
}

void LocalBandwidths(const Options& options) {
  for (uint64_t bytes : {uint64_t{256} << 10, uint64_t{4} << 20, uint64_t{64} << 20}) {
    std::vector<char> a(bytes, 1), b(bytes, 2);
    std::vector<float> x(bytes / 4, 1.0f), y(bytes / 4, 2.0f);
    const double copy = LocalBandwidth(bytes, options.repeats, [&] {
      std::memcpy(b.data(), a.data(), bytes);
      asm volatile("" ::"r"(b.data()) : "memory");
    });
    const double sum = LocalBandwidth(bytes, options.repeats, [&] {
      for (size_t i = 0; i < x.size(); ++i) y[i] += x[i];
      asm volatile("" ::"r"(y.data()) : "memory");
    });
    std::printf("local %9llu B: memcpy %6.2f GB/s, float sum (y += x) %6.2f GB/s of y\n",
                static_cast<unsigned long long>(bytes), copy, sum);
  }
}

int Run(const Options& options) {
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("gpurun-tune-probe: mmap of the shared FIFOs");
    return 1;
  }
  auto* shared = new (mem) Shared();
  std::vector<uint64_t> sizes;
  for (uint64_t b = 8; b <= options.max_bytes; b *= 8) sizes.push_back(b);

  const pid_t child = fork();
  if (child < 0) {
    std::perror("gpurun-tune-probe: fork");
    return 1;
  }
  const int rank = child == 0 ? 1 : 0;
  // Normal floats (1.0f) in both buffers: a sum over denormals would measure
  // the FPU's slow path instead of the memory.
  std::vector<char> src(options.max_bytes), dst(options.max_bytes);
  const float one = 1.0f;
  for (uint64_t i = 0; i + 4 <= options.max_bytes; i += 4) {
    std::memcpy(src.data() + i, &one, 4);
    std::memcpy(dst.data() + i, &one, 4);
  }
  Barrier(shared->arrived, rank);
  const double raw_us = RawPingPong(*shared, rank, options.repeats);
  // Ping-pong of every variant, then exchanges of a few.
  std::vector<std::vector<double>> hops, exchanges;
  std::vector<const char*> hop_names, exchange_names;
  for (bool exchange : {false, true}) {
    for (const Variant& v : kVariants) {
      if (exchange && v.mode.last_line_first) continue;
      Barrier(shared->arrived, rank);
      if (rank == 0) {
        ResetFifo(shared->fifo[0]);
        ResetFifo(shared->fifo[1]);
      }
      Barrier(shared->arrived, rank);
      (exchange ? exchanges : hops).push_back(Measure(*shared, rank, v, exchange, sizes, options, src, dst));
      (exchange ? exchange_names : hop_names).push_back(v.name);
    }
  }
  if (rank == 1) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);

  std::printf("# raw 8-byte store seen by the other process (half ping-pong): %.3f us\n", raw_us);
  PrintTable("one hop (half ping-pong), min of repeats", sizes, hop_names, hops, 1);
  PrintTable("two-way exchange (both ranks send and receive; 2 sides per byte per rank)", sizes, exchange_names,
             exchanges, 2);
  LocalBandwidths(options);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace
}  // namespace gpurun::coll::probe

int main(int argc, char** argv) {
  gpurun::coll::probe::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--repeats" || arg == "--max-bytes") && i + 1 < argc) {
      char* end = nullptr;
      const unsigned long long value = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || value == 0) {
        (void)std::fprintf(stderr, "gpurun-tune-probe: %s needs a positive integer, got '%s'\n", arg.c_str(), argv[i]);
        return 2;
      }
      if (arg == "--repeats") options.repeats = static_cast<int>(value);
      if (arg == "--max-bytes") options.max_bytes = value;
    } else {
      (void)std::fprintf(stderr, "usage: gpurun-tune-probe [--repeats N] [--max-bytes B]\n");
      return 2;
    }
  }
  return gpurun::coll::probe::Run(options);
}
