// Forwards one rank's stdout or stderr pipe to gpurun's stdout or stderr, in
// whole lines (LineTagger), from the launcher's event loop.
//
// OutputSink is gpurun's side: each Write is one or more whole lines, written
// completely before the next (only the event-loop thread writes). Once the
// reader of gpurun's output goes away (EPIPE), output is discarded.
#ifndef GPURUN_RUNTIME_LAUNCHER_OUTPUT_FORWARDER_H_
#define GPURUN_RUNTIME_LAUNCHER_OUTPUT_FORWARDER_H_

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <functional>
#include <string_view>

#include "runtime/launcher/line_tagger.h"
#include "runtime/launcher/unique_fd.h"

namespace gpurun::launcher {

class OutputSink {
 public:
  explicit OutputSink(int fd) : fd_(fd) {}
  // Writes all of `bytes` (blocking), unless the output is gone.
  void Write(std::string_view bytes);
  bool discarding() const { return discard_; }

 private:
  int fd_;
  bool discard_ = false;
};

class StreamForwarder {
 public:
  // Starts reading `pipe` (a rank's stdout or stderr) at once; `on_closed`
  // runs on the event loop after EOF (or Close) once everything is written.
  StreamForwarder(boost::asio::io_context& io, UniqueFd pipe, int rank, bool tag, OutputSink& sink,
                  std::function<void()> on_closed);
  StreamForwarder(const StreamForwarder&) = delete;
  StreamForwarder& operator=(const StreamForwarder&) = delete;

  // Stops reading (pending bytes are still written); on_closed runs soon after.
  void Close();
  bool open() const { return open_; }

 private:
  void ReadMore();
  void Finish();

  boost::asio::posix::stream_descriptor pipe_;
  LineTagger tagger_;
  OutputSink& sink_;
  std::function<void()> on_closed_;
  std::array<char, 64 * 1024> buffer_;
  bool open_ = true;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_OUTPUT_FORWARDER_H_
