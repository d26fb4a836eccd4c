// Point-to-point latency and bandwidth (see p2p_bench.h).
#include "bench/p2p_bench.h"

#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "gpurun/gpurun.h"

namespace {

double NowUs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

bool Ok(grResult_t r, const char* what) {
  if (r == grSuccess) return true;
  std::fprintf(stderr, "gpurun-bench: %s: %s: %s\n", what, grGetErrorString(r), grGetLastErrorMessage());
  return false;
}

// OSU's defaults: many iterations for small messages, fewer above 8 KiB.
int Iters(const BenchArgs& a, size_t bytes) { return a.iters > 0 ? a.iters : (bytes > 8192 ? 1000 : 10000); }
int Warmup(const BenchArgs& a, size_t bytes) { return a.warmup > 0 ? a.warmup : (bytes > 8192 ? 10 : 100); }

// Page-aligned buffer (as OSU allocates), touched so page faults stay out of the timing.
struct Buffer {
  explicit Buffer(size_t n) {
    if (posix_memalign(&data, 4096, n > 0 ? n : 1) != 0) std::abort();
    std::memset(data, 1, n > 0 ? n : 1);
  }
  ~Buffer() { std::free(data); }
  void* data = nullptr;
};

// -d: let the peer's message arrive before the wait for it starts.
void Delay(const BenchArgs& a) {
  if (a.delay_us > 0) usleep(static_cast<useconds_t>(a.delay_us));
}

}  // namespace

int RunLatency(const BenchArgs& args, int rank) {
  grComm_t w = grCommWorld();
  Buffer buf(args.max_bytes);
  if (rank == 0) std::printf("# gpurun-bench latency\n# %-10s %14s\n", "Size", "Latency (us)");
  for (size_t bytes = args.min_bytes; bytes <= args.max_bytes; bytes = NextSize(bytes, args.factor)) {
    const int iters = Iters(args, bytes), warm = Warmup(args, bytes);
    double start = 0;
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) start = NowUs();
      if (rank == 0) {
        if (!Ok(grSend(buf.data, bytes, grByte, 1, 1, w, GR_STREAM_HOST), "send")) return 1;
        Delay(args);
        if (!Ok(grRecv(buf.data, bytes, grByte, 1, 1, w, GR_STATUS_IGNORE, GR_STREAM_HOST), "recv")) return 1;
      } else if (rank == 1) {
        Delay(args);
        if (!Ok(grRecv(buf.data, bytes, grByte, 0, 1, w, GR_STATUS_IGNORE, GR_STREAM_HOST), "recv")) return 1;
        if (!Ok(grSend(buf.data, bytes, grByte, 0, 1, w, GR_STREAM_HOST), "send")) return 1;
      }
    }
    if (rank == 0) std::printf("  %-10zu %14.2f\n", bytes, (NowUs() - start) / (2.0 * iters));
    std::fflush(stdout);
  }
  return 0;
}

int RunBandwidth(const BenchArgs& args, int rank) {
  grComm_t w = grCommWorld();
  Buffer buf(args.max_bytes);
  std::vector<grRequest_t> reqs(args.window);
  if (rank == 0) std::printf("# gpurun-bench bw\n# %-10s %16s\n", "Size", "Bandwidth (MB/s)");
  for (size_t bytes = args.min_bytes > 0 ? args.min_bytes : 1; bytes <= args.max_bytes;
       bytes = NextSize(bytes, args.factor)) {
    const int iters = args.iters > 0 ? args.iters : (bytes > 8192 ? 20 : 100);
    const int warm = args.warmup > 0 ? args.warmup : (bytes > 8192 ? 2 : 10);
    double start = 0;
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) start = NowUs();
      for (int k = 0; k < args.window && rank < 2; ++k) {
        const grResult_t r = rank == 0 ? grIsend(buf.data, bytes, grByte, 1, 100, w, GR_STREAM_HOST, &reqs[k])
                                       : grIrecv(buf.data, bytes, grByte, 0, 100, w, GR_STREAM_HOST, &reqs[k]);
        if (!Ok(r, "post")) return 1;
      }
      if (rank == 1) Delay(args);
      if (rank < 2 && !Ok(grWaitall(args.window, reqs.data(), GR_STATUSES_IGNORE), "waitall")) return 1;
      if (rank == 0) Delay(args);
      if (rank == 0 && !Ok(grRecv(nullptr, 0, grByte, 1, 101, w, GR_STATUS_IGNORE, GR_STREAM_HOST), "ack")) return 1;
      if (rank == 1 && !Ok(grSend(nullptr, 0, grByte, 0, 101, w, GR_STREAM_HOST), "ack")) return 1;
    }
    const double us = NowUs() - start;
    if (rank == 0) std::printf("  %-10zu %16.2f\n", bytes, bytes * double(args.window) * iters / us);
    std::fflush(stdout);
  }
  return 0;
}
