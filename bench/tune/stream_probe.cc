// gpurun-stream-probe: is this machine's cross-core streaming steady? Two
// processes pinned to CPUs 0 and 1 stream a message both ways at once
// through a shared FIFO of 8 slots of 64 KiB (memcpy in, memcpy out, a
// release store of the slot count): a 2-rank ring step stripped of gpurun.
// Each run forks a fresh pair (fresh pages, as a fresh job has) and prints
// its mean time per message, so a machine whose time jumps between runs
// shows it without gpurun in the way.
//
//   gpurun-stream-probe [--runs N] [--kib K] [--iters I]
//
// Written after the ring allgather took 43-52 us in most runs and 123-331 us
// in others on a 2-vCPU VM (coll/tuner/tuner_tables_host.cc, measurement
// H): this probe reproduced the same split there (40-46 us in most runs,
// 323-362 us in streaks of runs), so the split is the machine's.
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr size_t kSlots = 8;
constexpr size_t kSlotBytes = size_t{64} << 10;

struct Fifo {
  alignas(128) std::atomic<uint64_t> head;  // slots written
  alignas(128) std::atomic<uint64_t> tail;  // slots read
  alignas(4096) char data[kSlots * kSlotBytes];
};

bool Pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// One side: streams `bytes` out through `out` and in from `in`, `iters` times
// after 10 untimed; returns microseconds per message.
double Stream(Fifo& out, Fifo& in, size_t bytes, int iters) {
  auto* src = static_cast<char*>(std::aligned_alloc(4096, bytes));
  auto* dst = static_cast<char*>(std::aligned_alloc(4096, bytes));
  std::memset(src, 1, bytes);
  std::memset(dst, 0, bytes);
  uint64_t sent = 0, received = 0;
  auto start = std::chrono::steady_clock::now();
  for (int it = 0; it < iters + 10; ++it) {
    if (it == 10) start = std::chrono::steady_clock::now();
    for (size_t so = 0, ro = 0; so < bytes || ro < bytes;) {
      if (so < bytes && sent - out.tail.load(std::memory_order_acquire) < kSlots) {
        std::memcpy(out.data + (sent % kSlots) * kSlotBytes, src + so, kSlotBytes);
        so += kSlotBytes;
        out.head.store(++sent, std::memory_order_release);
      }
      if (ro < bytes && in.head.load(std::memory_order_acquire) > received) {
        std::memcpy(dst + ro, in.data + (received % kSlots) * kSlotBytes, kSlotBytes);
        ro += kSlotBytes;
        in.tail.store(++received, std::memory_order_release);
      }
    }
  }
  const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
  std::free(src);
  std::free(dst);
  return took.count() / iters;
}

// One run in a fresh pair of processes; a negative value on failure.
double Run(size_t bytes, int iters) {
  void* shared = mmap(nullptr, 2 * sizeof(Fifo), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return -1;
  auto* fifos = new (shared) Fifo[2]();
  const pid_t child = fork();
  if (child < 0) return -1;
  const int me = child == 0 ? 1 : 0;
  if (!Pin(me)) {
    if (child == 0) _exit(1);
  }
  const double us = Stream(fifos[me], fifos[1 - me], bytes, iters);
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  munmap(shared, 2 * sizeof(Fifo));
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? us : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20, iters = 300;
  size_t kib = 512;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (value <= 0) {
      std::fprintf(stderr, "gpurun-stream-probe: %s needs a positive number\n", flag.c_str());
      return 2;
    }
    if (flag == "--runs")
      runs = static_cast<int>(value);
    else if (flag == "--kib")
      kib = static_cast<size_t>(value);
    else if (flag == "--iters")
      iters = static_cast<int>(value);
    else {
      std::fprintf(stderr, "usage: gpurun-stream-probe [--runs N] [--kib K] [--iters I]\n");
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: gpurun-stream-probe [--runs N] [--kib K] [--iters I]\n");
    return 2;
  }
  const size_t bytes = (kib * 1024 + kSlotBytes - 1) / kSlotBytes * kSlotBytes;
  std::printf("# %zu KiB each way through %zu x %zu KiB slots, CPUs 0 and 1, %d iterations a run; us per message:\n",
              bytes >> 10, kSlots, kSlotBytes >> 10, iters);
  for (int r = 0; r < runs; ++r) {
    const double us = Run(bytes, iters);
    if (us < 0) {
      std::fprintf(stderr, "gpurun-stream-probe: run %d failed (fork, mmap or pinning to CPUs 0 and 1)\n", r);
      return 1;
    }
    std::printf("%.1f\n", us);
    std::fflush(stdout);
  }
  return 0;
}
