// gpurun_p2p_ucx_pingpong: latency and bandwidth of UcxWire between two
// processes of this host (the program forks its second rank).
//
//   gpurun_p2p_ucx_pingpong                          # UCX's choice (shared memory)
//   UCX_TLS=tcp,self UCX_NET_DEVICES=lo gpurun_p2p_ucx_pingpong   # loopback TCP
//
// Latency: ping-pong, half the round trip, 1 B .. 8 KiB (eager path).
// Bandwidth: 16 messages in flight then a 1-byte ack, 64 KiB .. 4 MiB
// (announce + rendezvous path, fetched into a user buffer).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <vector>

#include "p2p/ucx/ucx_wire.h"
#include "pipe_bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps arrivals; eager bytes are copied out as a receive would.
class BenchSink : public WireSink {
 public:
  void OnEager(int, const MatchHeader& h, std::span<const std::byte> payload) override {
    eager_bytes.assign(payload.begin(), payload.end());
    arrivals.push_back({h.bytes, nullptr});
  }
  void OnPending(int, const MatchHeader& h, std::unique_ptr<PendingPayload> p) override {
    arrivals.push_back({h.bytes, std::move(p)});
  }
  void OnPeerFailed(int peer, const Status& why) override {
    std::fprintf(stderr, "peer %d failed: %s\n", peer, why.ToString().c_str());
    _exit(1);
  }
  struct Item {
    uint64_t bytes;
    std::unique_ptr<PendingPayload> pending;
  };
  std::deque<Item> arrivals;
  std::vector<std::byte> eager_bytes;
};

void Poll(Wire& wire) {
  if (!wire.Progress().ok()) _exit(1);
}

// Waits for one message and moves it into `buffer`.
void ReceiveOne(Wire& wire, BenchSink& sink, std::vector<std::byte>& buffer) {
  while (sink.arrivals.empty()) Poll(wire);
  BenchSink::Item item = std::move(sink.arrivals.front());
  sink.arrivals.pop_front();
  if (!item.pending) return;
  bool done = false;
  item.pending->Fetch(buffer.data(), item.bytes, [&](const Status& s) {
    if (!s.ok()) _exit(1);
    done = true;
  });
  while (!done) Poll(wire);
}

void SendOne(Wire& wire, int peer, const std::vector<std::byte>& data, size_t bytes, int* pending) {
  ++*pending;
  Status s =
      wire.Send(peer, {.context = 0, .source = 0, .tag = 0, .bytes = bytes}, data.data(), [pending](const Status& st) {
        if (!st.ok()) _exit(1);
        --*pending;
      });
  if (!s.ok()) _exit(1);
}

double Latency(Wire& wire, BenchSink& sink, int rank, size_t bytes, int iterations) {
  std::vector<std::byte> buffer(bytes > 0 ? bytes : 1);
  int pending = 0;
  Clock::time_point start;
  for (int i = -iterations / 10; i < iterations; ++i) {  // first tenth is warm-up
    if (i == 0) start = Clock::now();
    if (rank == 0) {
      SendOne(wire, 1, buffer, bytes, &pending);
      ReceiveOne(wire, sink, buffer);
    } else {
      ReceiveOne(wire, sink, buffer);
      SendOne(wire, 0, buffer, bytes, &pending);
    }
  }
  while (pending > 0) Poll(wire);
  return std::chrono::duration<double>(Clock::now() - start).count() / iterations / 2;
}

double Bandwidth(Wire& wire, BenchSink& sink, int rank, size_t bytes, int rounds) {
  constexpr int kWindow = 16;
  std::vector<std::byte> buffer(bytes);
  std::vector<std::byte> ack(1);
  int pending = 0;
  Clock::time_point start;
  for (int r = -2; r < rounds; ++r) {  // two warm-up rounds
    if (r == 0) start = Clock::now();
    if (rank == 0) {
      for (int w = 0; w < kWindow; ++w) SendOne(wire, 1, buffer, bytes, &pending);
      ReceiveOne(wire, sink, ack);
      while (pending > 0) Poll(wire);
    } else {
      for (int w = 0; w < kWindow; ++w) ReceiveOne(wire, sink, buffer);
      SendOne(wire, 0, ack, 1, &pending);
    }
  }
  while (pending > 0) Poll(wire);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(bytes) * kWindow * rounds / seconds;
}

int Run() {
  testing::ForkedPair pair = testing::ForkPair();
  if (pair.rank < 0) return 1;
  const int rank = pair.rank;
  StatusOr<std::vector<PeerInfo>> peers = ExchangePeerInfo(*pair.bootstrap);
  if (!peers.ok()) return 1;
  StatusOr<std::unique_ptr<UcxWire>> made = UcxWire::Create(*pair.bootstrap, *peers, {1 - rank});
  if (!made.ok()) {
    std::fprintf(stderr, "%s\n", made.status().ToString().c_str());
    return 1;
  }
  UcxWire& wire = **made;
  BenchSink sink;
  wire.set_sink(&sink);
  if (rank == 0) {
    const UcxSetupTimes& t = wire.setup_times();
    std::printf("setup: context %.1f ms, worker %.1f ms, exchange %.1f ms, connect %.1f ms\n", t.init_s * 1e3,
                t.worker_s * 1e3, t.exchange_s * 1e3, t.connect_s * 1e3);
    std::printf("%10s %12s\n", "bytes", "latency_us");
  }
  for (size_t bytes = 1; bytes <= 8192; bytes *= 2) {
    const double s = Latency(wire, sink, rank, bytes, 20000);
    if (rank == 0) std::printf("%10zu %12.2f\n", bytes, s * 1e6);
  }
  if (rank == 0) std::printf("%10s %12s\n", "bytes", "MB/s");
  for (size_t bytes = 64 << 10; bytes <= (4 << 20); bytes *= 2) {
    const int rounds = static_cast<int>(std::max<size_t>(4, (512u << 20) / (bytes * 16)));
    const double bw = Bandwidth(wire, sink, rank, bytes, rounds);
    if (rank == 0) std::printf("%10zu %12.0f\n", bytes, bw / 1e6);
  }
  if (!pair.bootstrap->Barrier().ok()) return 1;
  wire.Shutdown(InternalError("benchmark over"));
  if (rank == 1) _exit(0);
  int status = 0;
  waitpid(pair.child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace
}  // namespace gpurun::p2p

int main() { return gpurun::p2p::Run(); }
