// Same-host peer death detection through pidfds (see peer_monitor.h).
#include "p2p/peer_monitor.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/base/log.h"

namespace gpurun::p2p {
namespace {

// A pidfd for `pid`, or -1 when the kernel or a seccomp filter refuses.
int OpenPidfd(int pid) {
#ifdef SYS_pidfd_open
  const long fd = syscall(SYS_pidfd_open, pid, 0);
  return fd < 0 ? -1 : static_cast<int>(fd);
#else
  (void)pid;
  return -1;
#endif
}

Status DeathOf(int rank, int pid, const std::string& host) {
  return RemoteError("rank " + std::to_string(rank) + " (pid " + std::to_string(pid) + " on " + host + ") died");
}

}  // namespace

std::unique_ptr<PeerMonitor> PeerMonitor::Create(int my_rank, const std::vector<PeerInfo>& peers, double interval_s) {
  std::unique_ptr<PeerMonitor> monitor(
      new PeerMonitor(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(interval_s))));
  if (my_rank < 0 || my_rank >= static_cast<int>(peers.size())) return monitor;
  const std::string& my_host = peers[my_rank].host;
  const int my_pid = static_cast<int>(getpid());
  int fallbacks = 0;
  for (const PeerInfo& p : peers) {
    if (p.rank == my_rank || p.host != my_host || p.pid == my_pid || p.pid <= 0) continue;
    const int fd = OpenPidfd(p.pid);
    // ESRCH: the peer is gone already; Poll() will say so.
    if (fd < 0) ++fallbacks;
    monitor->watched_.push_back(Watched{p.rank, p.pid, p.host, fd, false, false});
  }
  if (fallbacks > 0) {
    GR_LOG(Info, P2p) << "peer monitor: pidfd_open unavailable for " << fallbacks
                      << " peer(s); watching them with kill(pid, 0)";
  }
  return monitor;
}

PeerMonitor::~PeerMonitor() {
  for (const Watched& w : watched_) {
    if (w.pidfd >= 0) close(w.pidfd);
  }
}

std::vector<PeerMonitor::Death> PeerMonitor::Poll() {
  std::vector<Death> deaths;
  if (watched_.empty()) return deaths;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_check_ < interval_) return deaths;
  last_check_ = now;
  // One poll() over every live peer's pidfd; kill(pid, 0) for the others.
  std::vector<pollfd> fds;
  std::vector<Watched*> polled;
  for (Watched& w : watched_) {
    if (w.dead) continue;
    if (w.pidfd >= 0) {
      fds.push_back(pollfd{w.pidfd, POLLIN, 0});
      polled.push_back(&w);
    } else if (kill(w.pid, 0) != 0 && errno == ESRCH) {
      w.dead = true;
    }
  }
  if (!fds.empty() && poll(fds.data(), fds.size(), 0) > 0) {
    for (size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) polled[i]->dead = true;
    }
  }
  for (Watched& w : watched_) {
    if (!w.dead || w.reported) continue;
    w.reported = true;
    deaths.push_back(Death{w.rank, DeathOf(w.rank, w.pid, w.host)});
  }
  return deaths;
}

}  // namespace gpurun::p2p
