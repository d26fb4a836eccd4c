// Micro-benchmark of the shm wire, two ranks as two threads (pinned to cores
// 0 and 1): one-way latency from ping-pong, and streaming bandwidth with a
// window of messages and a 1-byte ack. Not a test; run by hand:
//   gpurun_p2p_shm_bench [cma=auto|on|off] [eager=16K] [reps=5]
// Arrivals are copied into a receive buffer, as the engine would.
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "p2p/shm/shm_wire.h"
#include "runtime/base/params.h"
#include "runtime/bootstrap/inproc_bootstrap.h"

namespace gpurun::p2p {
namespace {

class BenchSink : public WireSink {
 public:
  explicit BenchSink(std::vector<std::byte>* buffer) : buffer_(buffer) {}
  void OnEager(int, const MatchHeader&, std::span<const std::byte> payload) override {
    if (!payload.empty()) std::memcpy(buffer_->data(), payload.data(), payload.size());
    ++arrived;
  }
  void OnPending(int, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) override {
    payload->Fetch(buffer_->data(), header.bytes, [this](const Status&) { ++arrived; });
  }
  void OnPeerFailed(int, const Status& why) override {
    (void)std::fprintf(stderr, "peer failed: %s\n", why.ToString().c_str());
  }
  long arrived = 0;

 private:
  std::vector<std::byte>* buffer_;
};

constexpr size_t kMaxBytes = size_t{64} << 20;

void Pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void WaitFor(ShmWire& wire, BenchSink& sink, long count) {
  while (sink.arrived < count) (void)wire.Progress();
}

long Iterations(size_t bytes, long base) { return std::max<long>(10, static_cast<long>(base / (1 + bytes / 4096))); }

// Ping-pong: one-way latency in microseconds.
double PingPong(int rank, ShmWire& wire, BenchSink& sink, const std::function<void(size_t)>& send_one, long* expected,
                size_t bytes, long iters) {
  std::chrono::steady_clock::time_point t0;
  for (long i = -iters / 10; i < iters; ++i) {
    if (i == 0) t0 = std::chrono::steady_clock::now();
    if (rank == 0) send_one(bytes);
    WaitFor(wire, sink, ++*expected);
    if (rank == 1) send_one(bytes);
  }
  const auto elapsed = std::chrono::steady_clock::now() - t0;
  return std::chrono::duration<double, std::micro>(elapsed).count() / static_cast<double>(iters) / 2;
}

// Streaming: `window` messages, then a 1-byte ack; GB/s.
double Stream(int rank, ShmWire& wire, BenchSink& sink, const std::function<void(size_t)>& send_one, long* expected,
              size_t bytes, long iters) {
  constexpr long kWindow = 16;
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < iters; ++i) {
    if (rank == 0) {
      for (long w = 0; w < kWindow; ++w) send_one(bytes);
      WaitFor(wire, sink, ++*expected);
    } else {
      *expected += kWindow;
      WaitFor(wire, sink, *expected);
      send_one(1);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(iters * kWindow) * static_cast<double>(bytes) / secs / 1e9;
}

// Best of `reps` runs of each size (the host may be shared and noisy).
void RunRank(int rank, ShmWire& wire, BenchSink& sink, std::vector<std::byte>& send, int reps) {
  const int peer = 1 - rank;
  MatchHeader h{1, rank, 0, 0};
  long expected = 0;
  const std::function<void(size_t)> send_one = [&](size_t bytes) {
    h.bytes = bytes;
    bool done = false;
    (void)wire.Send(peer, h, send.data(), [&](const Status&) { done = true; });
    while (!done) (void)wire.Progress();
  };
  if (rank == 0) std::printf("%-10s %12s %12s\n", "bytes", "latency_us", "bw_GB/s");
  for (size_t bytes = 1; bytes <= kMaxBytes; bytes *= (bytes < 65536 ? 8 : 4)) {
    double lat = 1e30, bw = 0;
    for (int rep = 0; rep < reps; ++rep) {
      lat = std::min(lat, PingPong(rank, wire, sink, send_one, &expected, bytes, Iterations(bytes, 50000)));
      if (rank == 1) WaitFor(wire, sink, expected);
      const long iters = std::max<long>(4, Iterations(bytes, 5000) / 16);
      bw = std::max(bw, Stream(rank, wire, sink, send_one, &expected, bytes, iters));
    }
    if (rank == 0) std::printf("%-10zu %12.3f %12.2f\n", bytes, lat, bw);
  }
}

int Main(int argc, char** argv) {
  int reps = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("reps=", 0) == 0) {
      reps = std::stoi(arg.substr(5));
      continue;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(0, eq) == "cma" ? "GPURUN_SHM_CMA" : "GPURUN_SHM_EAGER_LIMIT";
    if (Status s = ParamRegistry::Global().Override(name, arg.substr(eq + 1)); !s.ok()) {
      (void)std::fprintf(stderr, "%s\n", s.ToString().c_str());
      return 2;
    }
  }
  StatusOr<InprocGroup> group = InprocGroup::Create(2);
  std::vector<std::unique_ptr<Bootstrap>> boots = group->TakeAll();
  std::vector<std::thread> threads;
  threads.reserve(2);
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      Pin(r);
      std::vector<PeerInfo> peers = ExchangePeerInfo(*boots[r]).value();
      StatusOr<std::unique_ptr<ShmWire>> wire = ShmWire::Create(*boots[r], peers, {1 - r});
      if (!wire.ok()) {
        (void)std::fprintf(stderr, "%s\n", wire.status().ToString().c_str());
        std::exit(1);
      }
      std::vector<std::byte> send(kMaxBytes, std::byte{1}), recv(kMaxBytes, std::byte{2});
      BenchSink sink(&recv);
      (*wire)->set_sink(&sink);
      if (r == 0) std::printf("cma=%d eager=%lld\n", (*wire)->UsesCma(1), (long long)(*wire)->EagerLimit(1));
      RunRank(r, **wire, sink, send, reps);
      (void)boots[r]->Barrier();
    });
  }
  for (auto& t : threads) t.join();
  return 0;
}

}  // namespace
}  // namespace gpurun::p2p

int main(int argc, char** argv) { return gpurun::p2p::Main(argc, argv); }
