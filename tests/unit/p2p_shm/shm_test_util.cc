// Shm wire test helpers (see shm_test_util.h).
#include "tests/unit/p2p_shm/shm_test_util.h"

#include <dirent.h>

#include <chrono>
#include <thread>

#include "runtime/bootstrap/inproc_bootstrap.h"

namespace gpurun::p2p::testing {

void FakeSink::OnEager(int world_source, const MatchHeader& header, std::span<const std::byte> payload) {
  Arrival a;
  a.source = world_source;
  a.header = header;
  a.data.assign(payload.begin(), payload.end());
  arrivals.push_back(std::move(a));
}

void FakeSink::OnPending(int world_source, const MatchHeader& header, std::unique_ptr<PendingPayload> payload) {
  Arrival a;
  a.source = world_source;
  a.header = header;
  arrivals.push_back(std::move(a));
  Arrival& slot = arrivals.back();
  if (!auto_fetch) {
    slot.pending = std::move(payload);
    return;
  }
  slot.data.resize(header.bytes);
  payload->Fetch(slot.data.data(), slot.data.size(), [this](const Status& s) {
    ++fetches_done;
    if (!s.ok()) fetch_errors.push_back(s);
  });
}

void FakeSink::OnPeerFailed(int world_peer, const Status& why) { failures.emplace_back(world_peer, why); }

Completion DoneFlag::Callback() const {
  return [calls = calls, status = status](const Status& s) {
    ++*calls;
    *status = s;
  };
}

bool ShmJob::all_ok() const {
  for (const auto& r : results) {
    if (!r.ok()) return false;
  }
  return true;
}

ShmJob CreateShmJob(const JobOptions& options) {
  StatusOr<InprocGroup> group = InprocGroup::Create(options.ranks, {.timeout_s = 30});
  ShmJob job;
  job.job_id = group->IdentityOf(0).job_id;
  std::vector<std::unique_ptr<Bootstrap>> boots = group->TakeAll();
  for (int r = 0; r < options.ranks; ++r) job.results.emplace_back(InternalError("not run"));
  std::vector<std::thread> threads;
  threads.reserve(options.ranks);
  for (int r = 0; r < options.ranks; ++r) {
    threads.emplace_back([&, r] {
      StatusOr<std::vector<PeerInfo>> peers = ExchangePeerInfo(*boots[r]);
      if (!peers.ok()) {
        job.results[r] = peers.status();
        return;
      }
      if (options.edit_peers) options.edit_peers(r, *peers);
      std::vector<int> reach;
      if (options.reach) {
        reach = options.reach(r);
      } else {
        for (int q = 0; q < options.ranks; ++q) {
          if (q != r) reach.push_back(q);
        }
      }
      job.results[r] = ShmWire::Create(*boots[r], *peers, reach);
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < options.ranks; ++r) {
    job.sinks.push_back(std::make_unique<FakeSink>());
    if (job.results[r].ok()) job.wire(r).set_sink(job.sinks[r].get());
  }
  return job;
}

bool DriveUntil(ShmJob& job, const std::function<bool()>& done, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!done()) {
    for (auto& r : job.results) {
      if (r.ok() && !r.value()->Progress().ok()) return false;
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

std::vector<std::string> SegmentsOf(const std::string& job_id) {
  std::vector<std::string> names;
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return names;
  while (const dirent* e = readdir(dir)) {
    if (IsShmSegmentOf(job_id, e->d_name)) names.emplace_back(e->d_name);
  }
  closedir(dir);
  return names;
}

std::vector<std::byte> Pattern(size_t bytes, int seed) {
  std::vector<std::byte> out(bytes);
  uint32_t x = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (size_t i = 0; i < bytes; ++i) {
    x = x * 1664525u + 1013904223u;
    out[i] = static_cast<std::byte>(x >> 24);
  }
  return out;
}

}  // namespace gpurun::p2p::testing
