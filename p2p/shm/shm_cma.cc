// process_vm_readv helpers (see shm_cma.h).
#include "p2p/shm/shm_cma.h"

#include <sys/uio.h>

#include <cerrno>
#include <string>

namespace gpurun::p2p::shm {

Status CmaRead(pid_t pid, uint64_t remote_address, void* dst, size_t bytes) {
  auto* out = static_cast<char*>(dst);
  size_t done = 0;
  while (done < bytes) {
    iovec local{out + done, bytes - done};
    // An address in the peer's address space, never dereferenced here.
    iovec remote{reinterpret_cast<void*>(remote_address + done), bytes - done};  // NOLINT(performance-no-int-to-ptr)
    const ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    const int err = n < 0 ? errno : EIO;
    const std::string what =
        "process_vm_readv of " + std::to_string(bytes - done) + " bytes from pid " + std::to_string(pid);
    if (err == ESRCH) return RemoteError(what + ": the process is gone");
    return ErrnoError(what, err);
  }
  return OkStatus();
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
