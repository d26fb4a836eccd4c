// PeerLiveness: a cheap "is this peer process still there?" check for the shm
// wire, used only while a rendezvous or a queued send waits on the peer. It
// holds a pidfd (immune to pid reuse) where the kernel has them, and falls
// back to kill(pid, 0).
//
// Thread safety: none; owned by the wire.
#ifndef GPURUN_P2P_SHM_SHM_LIVENESS_H_
#define GPURUN_P2P_SHM_SHM_LIVENESS_H_

#include <sys/types.h>

namespace gpurun::p2p::shm {

class PeerLiveness {
 public:
  PeerLiveness() = default;
  explicit PeerLiveness(pid_t pid);
  PeerLiveness(PeerLiveness&& other) noexcept;
  PeerLiveness& operator=(PeerLiveness&& other) noexcept;
  PeerLiveness(const PeerLiveness&) = delete;
  PeerLiveness& operator=(const PeerLiveness&) = delete;
  ~PeerLiveness();

  // False once the process has exited (one poll or kill syscall).
  bool Alive() const;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
  int pidfd_ = -1;
  bool gone_at_open_ = false;  // pidfd_open said ESRCH
};

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_LIVENESS_H_
