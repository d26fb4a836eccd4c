// process_vm_readv / process_vm_writev helpers (see shm_cma.h).
#include "p2p/shm/shm_cma.h"

#include <sys/uio.h>

#include <cerrno>
#include <string>

namespace gpurun::p2p::shm {
namespace {

enum class Direction { kRead, kWrite };

// Copies between `local` here and `remote_address` in `pid`, looping over
// partial transfers.
Status CmaCopy(Direction direction, pid_t pid, uint64_t remote_address, void* local_address, size_t bytes) {
  auto* here = static_cast<char*>(local_address);
  size_t done = 0;
  while (done < bytes) {
    iovec local{here + done, bytes - done};
    // An address in the peer's address space, never dereferenced here.
    iovec remote{reinterpret_cast<void*>(remote_address + done), bytes - done};  // NOLINT(performance-no-int-to-ptr)
    const ssize_t n = direction == Direction::kRead ? process_vm_readv(pid, &local, 1, &remote, 1, 0)
                                                    : process_vm_writev(pid, &local, 1, &remote, 1, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int err = n < 0 ? errno : EIO;
    const std::string what =
        std::string(direction == Direction::kRead ? "process_vm_readv of " : "process_vm_writev of ") +
        std::to_string(bytes - done) + (direction == Direction::kRead ? " bytes from pid " : " bytes to pid ") +
        std::to_string(pid);
    if (err == ESRCH) return RemoteError(what + ": the process is gone");
    return ErrnoError(what, err);
  }
  return OkStatus();
}

}  // namespace

Status CmaRead(pid_t pid, uint64_t remote_address, void* dst, size_t bytes) {
  return CmaCopy(Direction::kRead, pid, remote_address, dst, bytes);
}

Status CmaWrite(pid_t pid, uint64_t remote_address, const void* src, size_t bytes) {
  // process_vm_writev only reads the local iovec.
  return CmaCopy(Direction::kWrite, pid, remote_address, const_cast<void*>(src), bytes);
}

Status ProbeCma(pid_t pid, uint64_t remote_address, uint64_t expected) {
  uint64_t word = 0;
  GR_RETURN_IF_ERROR(CmaRead(pid, remote_address, &word, sizeof(word)));
  if (word != expected) {
    return InternalError("process_vm_readv probe of pid " + std::to_string(pid) + " read an unexpected value");
  }
  return OkStatus();
}

}  // namespace gpurun::p2p::shm
