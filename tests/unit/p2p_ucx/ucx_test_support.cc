// Helpers for the UCX wire tests (see ucx_test_support.h).
#include "ucx_test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "runtime/base/env.h"
#include "runtime/bootstrap/inproc_bootstrap.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p::testing {

void RecordingSink::OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) {
  Arrival arrival;
  arrival.world_source = world_source;
  arrival.header = header;
  arrival.eager.assign(payload.begin(), payload.end());
  arrivals.push_back(std::move(arrival));
}

void RecordingSink::OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  Arrival arrival;
  arrival.world_source = world_source;
  arrival.header = header;
  arrival.pending = std::move(payload);
  arrivals.push_back(std::move(arrival));
}

void RecordingSink::OnPeerFailed(int world_peer, const Status& why) { failures.emplace_back(world_peer, why); }

const char* ModeName(UcxMode mode) { return mode == UcxMode::kTcp ? "Tcp" : "Default"; }

namespace {

void SetOrUnset(const std::string& name, const std::optional<std::string>& value) {
  if (value) {
    setenv(name.c_str(), value->c_str(), 1);
  } else {
    unsetenv(name.c_str());
  }
}

}  // namespace

ScopedEnvVar::ScopedEnvVar(std::string name, const std::optional<std::string>& value)
    : name_(std::move(name)), saved_(GetEnv(name_)) {
  SetOrUnset(name_, value);
}

ScopedEnvVar::~ScopedEnvVar() { SetOrUnset(name_, saved_); }

ScopedUcxEnv::ScopedUcxEnv(UcxMode mode)
    : devices_("UCX_NET_DEVICES", "lo"),
      tls_("UCX_TLS", mode == UcxMode::kTcp ? std::optional<std::string>("tcp,self") : std::nullopt) {}

std::vector<std::byte> Pattern(uint32_t seed, size_t size) {
  std::vector<std::byte> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 131 + seed * 7 + (i >> 11)) & 0xFF);
  return bytes;
}

bool MatchesPattern(uint32_t seed, const std::byte* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (data[i] != static_cast<std::byte>((i * 131 + seed * 7 + (i >> 11)) & 0xFF)) return false;
  }
  return true;
}

bool ProgressUntil(Wire& wire, const std::function<bool()>& done, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done()) {
    StatusOr<int> events = wire.Progress();
    if (!events.ok()) return false;
    if (std::chrono::steady_clock::now() > deadline) return false;
    if (*events == 0) std::this_thread::yield();
  }
  return true;
}

std::optional<Arrival> NextArrival(Wire& wire, RecordingSink& sink, double seconds) {
  if (!ProgressUntil(
          wire, [&] { return !sink.arrivals.empty(); }, seconds))
    return std::nullopt;
  Arrival arrival = std::move(sink.arrivals.front());
  sink.arrivals.pop_front();
  return arrival;
}

std::optional<std::vector<std::byte>> Receive(Wire& wire, Arrival& arrival, double seconds) {
  if (!arrival.pending) return arrival.eager;
  std::vector<std::byte> data(arrival.header.bytes);
  std::optional<Status> result;
  arrival.pending->Fetch(data.data(), data.size(), [&](const Status& s) { result = s; });
  if (!ProgressUntil(
          wire, [&] { return result.has_value(); }, seconds))
    return std::nullopt;
  if (!result->ok()) return std::nullopt;
  return data;
}

Status SendAndWait(Wire& wire, int peer, const MatchHeader& header, const void* data, double seconds) {
  std::optional<Status> result;
  Status started = wire.Send(peer, header, data, [&](const Status& s) { result = s; });
  if (!started.ok()) return started;
  if (!ProgressUntil(
          wire, [&] { return result.has_value(); }, seconds))
    return TimeoutError("send did not complete");
  return *result;
}

void RunUcxRanks(int size, const std::function<void(UcxRank&)>& body, bool with_self) {
  StatusOr<InprocGroup> group = InprocGroup::Create(size, {.ranks_per_node = 0, .timeout_s = 120});
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  std::vector<std::unique_ptr<Bootstrap>> boots = group->TakeAll();
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      UcxRank rank;
      rank.rank = r;
      rank.bootstrap = boots[r].get();
      StatusOr<std::vector<PeerInfo>> peers = ExchangePeerInfo(*rank.bootstrap);
      ASSERT_TRUE(peers.ok()) << peers.status().ToString();
      std::vector<int> reach;
      for (int p = 0; p < size; ++p) {
        if (p != r || with_self) reach.push_back(p);
      }
      StatusOr<std::unique_ptr<UcxWire>> wire = UcxWire::Create(*rank.bootstrap, *peers, reach);
      ASSERT_TRUE(wire.ok()) << wire.status().ToString();
      rank.wire = std::move(*wire);
      rank.wire->set_sink(&rank.sink);
      body(rank);
      // Bodies finish their own traffic; the barrier keeps a wire open until every rank is done.
      EXPECT_TRUE(rank.bootstrap->Barrier().ok());
      rank.wire->Shutdown(Status(grInternalError, "test over"));
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace gpurun::p2p::testing
