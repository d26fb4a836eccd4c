// Helpers for the UCX wire tests: a recording WireSink, payload patterns,
// progress loops with deadlines, the UCX environment of a test mode, and
// InprocBootstrap runs with one thread (and one UcxWire) per rank.
#ifndef GPURUN_TESTS_UNIT_P2P_UCX_UCX_TEST_SUPPORT_H_
#define GPURUN_TESTS_UNIT_P2P_UCX_UCX_TEST_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "p2p/ucx/ucx_wire.h"
#include "p2p/wire.h"
#include "runtime/bootstrap/bootstrap.h"

namespace gpurun::p2p::testing {

// One message as the sink got it: eager bytes, or a payload to fetch.
struct Arrival {
  int world_source = -1;
  MatchHeader header;
  std::vector<std::byte> eager;
  std::unique_ptr<PendingPayload> pending;  // null for eager arrivals
};

class RecordingSink : public WireSink {
 public:
  void OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) override;
  void OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) override;
  void OnPeerFailed(int world_peer, const Status& why) override;

  std::deque<Arrival> arrivals;
  std::vector<std::pair<int, Status>> failures;
};

// Which UCX transports a test runs over. Both stay on this machine.
enum class UcxMode { kDefault, kTcp };
const char* ModeName(UcxMode mode);

// Sets `name` to `value` (unsets it for nullopt) and restores the previous
// value on destruction.
class ScopedEnvVar {
 public:
  ScopedEnvVar(std::string name, const std::optional<std::string>& value);
  ~ScopedEnvVar();
  ScopedEnvVar(const ScopedEnvVar&) = delete;
  ScopedEnvVar& operator=(const ScopedEnvVar&) = delete;

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// Sets UCX_NET_DEVICES=lo and, for kTcp, UCX_TLS=tcp,self (kDefault unsets
// UCX_TLS); restores the previous values on destruction.
class ScopedUcxEnv {
 public:
  explicit ScopedUcxEnv(UcxMode mode);

 private:
  ScopedEnvVar devices_;
  ScopedEnvVar tls_;
};

// Deterministic payload bytes for (seed, size), and a check of them.
std::vector<std::byte> Pattern(uint32_t seed, size_t size);
bool MatchesPattern(uint32_t seed, const std::byte* data, size_t size);

// Progresses `wire` until `done()` or `seconds` elapse; false on timeout or a
// Progress error.
bool ProgressUntil(Wire& wire, const std::function<bool()>& done, double seconds = 60);
// Waits for the next arrival; nullopt on timeout.
std::optional<Arrival> NextArrival(Wire& wire, RecordingSink& sink, double seconds = 60);
// Fetches `arrival` fully (eager: copies) into a vector.
std::optional<std::vector<std::byte>> Receive(Wire& wire, Arrival& arrival, double seconds = 60);
// Sends and waits for the completion; returns the completion status.
Status SendAndWait(Wire& wire, int peer, const MatchHeader& header, const void* data, double seconds = 60);

// A rank of an in-process job: its bootstrap, wire and sink.
struct UcxRank {
  int rank = 0;
  Bootstrap* bootstrap = nullptr;
  std::unique_ptr<UcxWire> wire;
  RecordingSink sink;
};

// Runs `size` ranks as threads; each creates a UcxWire reaching every other
// rank (and itself when `with_self`), runs `body`, then shuts the wire down
// after a bootstrap barrier.
void RunUcxRanks(int size, const std::function<void(UcxRank&)>& body, bool with_self = false);

}  // namespace gpurun::p2p::testing

#endif  // GPURUN_TESTS_UNIT_P2P_UCX_UCX_TEST_SUPPORT_H_
