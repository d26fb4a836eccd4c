// PipeBootstrap (see pipe_bootstrap.h).
#include "pipe_bootstrap.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace gpurun::p2p::testing {
namespace {

Status WriteAll(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ErrnoError("pipe bootstrap write", errno);
    p += n;
    size -= static_cast<size_t>(n);
  }
  return OkStatus();
}

Status ReadAll(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  while (size > 0) {
    const ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return RemoteError("pipe bootstrap: the other rank is gone");
    if (n < 0) return ErrnoError("pipe bootstrap read", errno);
    p += n;
    size -= static_cast<size_t>(n);
  }
  return OkStatus();
}

}  // namespace

PipeBootstrap::PipeBootstrap(int rank, int fd) : fd_(fd) {
  identity_.rank = rank;
  identity_.size = 2;
  identity_.local_rank = rank;
  identity_.local_size = 2;
  identity_.host = "localhost";
  identity_.job_id = "pipe-test";
}

PipeBootstrap::~PipeBootstrap() { close(fd_); }

StatusOr<std::vector<std::vector<std::byte>>> PipeBootstrap::AllGather(std::span<const std::byte> mine) {
  const uint64_t size = mine.size();
  GR_RETURN_IF_ERROR(WriteAll(fd_, &size, sizeof(size)));
  GR_RETURN_IF_ERROR(WriteAll(fd_, mine.data(), mine.size()));
  uint64_t their_size = 0;
  GR_RETURN_IF_ERROR(ReadAll(fd_, &their_size, sizeof(their_size)));
  std::vector<std::byte> theirs(their_size);
  GR_RETURN_IF_ERROR(ReadAll(fd_, theirs.data(), theirs.size()));
  std::vector<std::vector<std::byte>> all(2);
  all[identity_.rank].assign(mine.begin(), mine.end());
  all[1 - identity_.rank] = std::move(theirs);
  return all;
}

Status PipeBootstrap::Barrier() { return AllGather({}).status(); }

bool PipeBootstrap::PeerWaiting() const {
  pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
  return poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

Status PipeBootstrap::Abort(int /*code*/, const std::string& /*message*/) { return OkStatus(); }

Status PipeBootstrap::Finalize() { return Barrier(); }

ForkedPair ForkPair() {
  ForkedPair pair;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return pair;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return pair;
  }
  pair.rank = pid == 0 ? 1 : 0;
  pair.child = pid;
  close(fds[pair.rank == 0 ? 1 : 0]);
  pair.bootstrap = std::make_unique<PipeBootstrap>(pair.rank, fds[pair.rank == 0 ? 0 : 1]);
  return pair;
}

}  // namespace gpurun::p2p::testing
