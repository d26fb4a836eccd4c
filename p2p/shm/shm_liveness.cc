// Peer process liveness (see shm_liveness.h).
#include "p2p/shm/shm_liveness.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace gpurun::p2p::shm {

PeerLiveness::PeerLiveness(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ < 0 && errno == ESRCH) gone_at_open_ = true;
#endif
}

PeerLiveness::PeerLiveness(PeerLiveness&& other) noexcept { *this = std::move(other); }

PeerLiveness& PeerLiveness::operator=(PeerLiveness&& other) noexcept {
  if (this != &other) {
    if (pidfd_ >= 0) close(pidfd_);
    pid_ = other.pid_;
    pidfd_ = std::exchange(other.pidfd_, -1);
    gone_at_open_ = other.gone_at_open_;
  }
  return *this;
}

PeerLiveness::~PeerLiveness() {
  if (pidfd_ >= 0) close(pidfd_);
}

bool PeerLiveness::Alive() const {
  if (gone_at_open_) return false;
  if (pidfd_ >= 0) {
    pollfd p{pidfd_, POLLIN, 0};
    return poll(&p, 1, 0) == 0;  // readable once the process has exited
  }
  return kill(pid_, 0) == 0 || errno == EPERM;
}

}  // namespace gpurun::p2p::shm
