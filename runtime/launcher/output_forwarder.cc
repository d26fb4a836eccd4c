// Line-preserving forwarding of rank output (see output_forwarder.h).
#include "runtime/launcher/output_forwarder.h"

#include <poll.h>
#include <unistd.h>

#include <boost/asio/buffer.hpp>
#include <cerrno>

namespace gpurun::launcher {

void OutputSink::Write(std::string_view bytes) {
  while (!bytes.empty() && !discard_) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n > 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {  // someone made our output non-blocking
      pollfd pfd{fd_, POLLOUT, 0};
      ::poll(&pfd, 1, 100);
    } else {
      discard_ = true;  // EPIPE (reader gone, SIGPIPE is ignored), EBADF, ...
    }
  }
}

StreamForwarder::StreamForwarder(boost::asio::io_context& io, UniqueFd pipe, int rank, bool tag, OutputSink& sink,
                                 std::function<void()> on_closed)
    : pipe_(io, pipe.release()), tagger_(rank, tag), sink_(sink), on_closed_(std::move(on_closed)) {
  ReadMore();
}

void StreamForwarder::ReadMore() {
  pipe_.async_read_some(boost::asio::buffer(buffer_), [this](const boost::system::error_code& ec, size_t n) {
    if (n > 0) sink_.Write(tagger_.Feed(std::string_view(buffer_.data(), n)));
    if (ec) {
      Finish();
      return;
    }
    ReadMore();
  });
}

void StreamForwarder::Close() {
  if (!open_) return;
  boost::system::error_code ignored;
  pipe_.cancel(ignored);  // the pending read completes with operation_aborted → Finish
}

void StreamForwarder::Finish() {
  if (!open_) return;
  open_ = false;
  sink_.Write(tagger_.Finish());
  boost::system::error_code ignored;
  pipe_.close(ignored);
  if (on_closed_) on_closed_();
}

}  // namespace gpurun::launcher
