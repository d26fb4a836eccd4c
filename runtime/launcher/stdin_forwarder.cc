// Terminal stdin → rank 0 (see stdin_forwarder.h).
#include "runtime/launcher/stdin_forwarder.h"

#include <poll.h>
#include <signal.h>

#include <array>
#include <cerrno>
#include <string_view>

namespace gpurun::launcher {
namespace {

// Waits until `fd` is ready for `events` or `wake` is readable; false on wake-up or error.
bool WaitReady(int fd, short events, int wake) {
  while (true) {
    pollfd fds[2] = {{fd, events, 0}, {wake, POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[1].revents != 0) return false;
    if (fds[0].revents != 0) return true;
  }
}

// Writes all of `bytes` to the non-blocking `fd`; false when the reader is gone or on wake-up.
bool WriteAll(int fd, std::string_view bytes, int wake) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      if (!WaitReady(fd, POLLOUT, wake)) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<StdinForwarder>> StdinForwarder::Start(int from, UniqueFd to) {
  std::unique_ptr<StdinForwarder> forwarder(new StdinForwarder());
  GR_ASSIGN_OR_RETURN(Pipe wake, MakePipe());
  forwarder->wake_read_ = std::move(wake.read);
  forwarder->wake_write_ = std::move(wake.write);
  if (::fcntl(to.get(), F_SETFL, ::fcntl(to.get(), F_GETFL) | O_NONBLOCK) != 0) {
    return ErrnoError("fcntl O_NONBLOCK on the stdin pipe", errno);
  }
  // The thread takes no signals: they stay with the event loop.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  forwarder->thread_ = std::thread(&StdinForwarder::Run, forwarder.get(), from, std::move(to));
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return forwarder;
}

StdinForwarder::~StdinForwarder() { Stop(); }

void StdinForwarder::Stop() {
  if (!thread_.joinable()) return;
  const char byte = 0;
  ssize_t ignored = ::write(wake_write_.get(), &byte, 1);
  (void)ignored;
  thread_.join();
}

void StdinForwarder::Run(int from, UniqueFd to) {
  std::array<char, 16 * 1024> buffer;
  while (WaitReady(from, POLLIN, wake_read_.get())) {
    const ssize_t n = ::read(from, buffer.data(), buffer.size());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;  // EOF (Ctrl-D) or a dead terminal
    if (!WriteAll(to.get(), std::string_view(buffer.data(), static_cast<size_t>(n)), wake_read_.get())) break;
  }
  // `to` closes here: rank 0 reads EOF.
}

}  // namespace gpurun::launcher
