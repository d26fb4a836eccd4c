// An owned file descriptor, closed on destruction, and pipe creation with
// O_CLOEXEC (so that one rank's pipes never leak into another rank).
#ifndef GPURUN_RUNTIME_LAUNCHER_UNIQUE_FD_H_
#define GPURUN_RUNTIME_LAUNCHER_UNIQUE_FD_H_

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "runtime/base/status.h"

namespace gpurun::launcher {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

// pipe2 with O_CLOEXEC on both ends.
inline StatusOr<Pipe> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return ErrnoError("pipe2", errno);
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_UNIQUE_FD_H_
