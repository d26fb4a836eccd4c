// Test helpers for the shm wire: a recording WireSink, a job of wires created
// over InprocBootstrap (ranks as threads, wires then driven from one thread),
// and a loop that runs Progress on every wire until a condition holds.
#ifndef GPURUN_TESTS_UNIT_P2P_SHM_SHM_TEST_UTIL_H_
#define GPURUN_TESTS_UNIT_P2P_SHM_SHM_TEST_UTIL_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "p2p/shm/shm_wire.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p::testing {

// One delivery: eager (data filled) or pending (payload set).
struct Arrival {
  int source = -1;
  MatchHeader header;
  std::vector<std::byte> data;
  std::unique_ptr<PendingPayload> pending;
};

class FakeSink : public WireSink {
 public:
  void OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) override;
  void OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) override;
  void OnPeerFailed(int world_peer, const Status& why) override;

  std::vector<Arrival> arrivals;
  std::vector<std::pair<int, Status>> failures;
  // When set, pending payloads are fetched at once into a buffer of
  // header.bytes (the arrival's data), as a posted receive would be.
  bool auto_fetch = false;
  int fetches_done = 0;
  std::vector<Status> fetch_errors;
};

// Records the status a Completion is called with.
struct DoneFlag {
  std::shared_ptr<int> calls = std::make_shared<int>(0);
  std::shared_ptr<Status> status = std::make_shared<Status>();
  Completion Callback() const;
  bool done() const { return *calls > 0; }
};

struct JobOptions {
  int ranks = 2;
  // Reach of each rank; default: every other rank.
  std::function<std::vector<int>(int rank)> reach = nullptr;
  // Edits the peer table a rank passes to Create (e.g. a dead pid).
  std::function<void(int rank, std::vector<PeerInfo>&)> edit_peers = nullptr;
};

struct ShmJob {
  std::string job_id;
  std::vector<StatusOr<std::unique_ptr<ShmWire>>> results;  // per rank
  std::vector<std::unique_ptr<FakeSink>> sinks;

  ShmWire& wire(int rank) { return *results[rank].value(); }
  FakeSink& sink(int rank) { return *sinks[rank]; }
  bool all_ok() const;
};

// Creates a wire on every rank (one thread per rank) and hooks up the sinks.
ShmJob CreateShmJob(const JobOptions& options);

// Runs Progress on every wire of `job` until `done` returns true; false on a
// timeout (seconds) or a Progress error.
bool DriveUntil(ShmJob& job, const std::function<bool()>& done, double timeout_s = 20);

// Entries of /dev/shm that belong to `job_id`.
std::vector<std::string> SegmentsOf(const std::string& job_id);

// A byte pattern that differs per message and offset.
std::vector<std::byte> Pattern(size_t bytes, int seed);

}  // namespace gpurun::p2p::testing

#endif  // GPURUN_TESTS_UNIT_P2P_SHM_SHM_TEST_UTIL_H_
