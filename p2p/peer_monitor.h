// PeerMonitor: notices, cheaply and without help from the wires, that a peer
// process on this host has exited, so that waits on it fail at once instead of
// at GPURUN_TIMEOUT.
//
// Covered: peers whose PeerInfo::host equals this rank's host and whose pid
// differs from this process's (ranks that are threads of this process, as
// with the in-process bootstrap, are skipped). Each is watched through a
// pidfd (pidfd_open, Linux >= 5.3), which becomes readable when the process
// exits even before its parent reaps it and is immune to pid reuse; where
// pidfd_open is unavailable (old kernel, seccomp) it falls back to
// kill(pid, 0) == ESRCH, which sees the death only once the process is reaped.
// Not covered: peers on other hosts (or with another virtual host identity:
// GPURUN_HOST_ID) — there the wires' OnPeerFailed and GPURUN_TIMEOUT apply;
// and telling "died" from "aborted": an exit seen here is reported as died.
//
// Thread safety: none; the engine calls it under its lock.
#ifndef GPURUN_P2P_PEER_MONITOR_H_
#define GPURUN_P2P_PEER_MONITOR_H_

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

class PeerMonitor {
 public:
  struct Death {
    int rank;    // world rank
    Status why;  // grRemoteError "rank R (pid P on HOST) died"
  };

  // Watches the peers of `peers` (indexed by world rank) on my_rank's host;
  // polls at most once every `interval_s` seconds.
  static std::unique_ptr<PeerMonitor> Create(int my_rank, const std::vector<PeerInfo>& peers,
                                             double interval_s = 0.005);
  ~PeerMonitor();
  PeerMonitor(const PeerMonitor&) = delete;
  PeerMonitor& operator=(const PeerMonitor&) = delete;

  // Whether Poll is worth calling: true on every kCallsPerCheck-th call when
  // peers are watched. Reads no clock, so the engine asks on every progress
  // round.
  bool Due() {
    if (watched_.empty() || ++calls_ < kCallsPerCheck) return false;
    calls_ = 0;
    return true;
  }
  // Peers found dead since the last call, each reported once. Returns at once
  // (nothing) when the previous check is less than the interval ago.
  std::vector<Death> Poll();

  // How many peers are watched (tests, logging).
  size_t watched() const { return watched_.size(); }

 private:
  struct Watched {
    int rank;
    int pid;
    std::string host;
    int pidfd;  // -1: fall back to kill(pid, 0)
    bool dead;
    bool reported;
  };

  // Progress rounds per look at the clock (a round costs 0.1 us or more).
  static constexpr uint32_t kCallsPerCheck = 16;

  explicit PeerMonitor(std::chrono::nanoseconds interval) : interval_(interval) {}

  uint32_t calls_ = 0;
  std::chrono::nanoseconds interval_;
  std::chrono::steady_clock::time_point last_check_{};
  std::vector<Watched> watched_;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_PEER_MONITOR_H_
