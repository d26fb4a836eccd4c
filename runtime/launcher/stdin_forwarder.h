// Copies gpurun's stdin to rank 0 through a pipe, on a small thread. Used only
// when stdin is a terminal: rank 0 is in its own process group, and a
// background process group reading the terminal would be stopped (SIGTTIN).
// A thread with poll() keeps the terminal's file flags untouched (an event
// loop would make it non-blocking, which the shell would then inherit).
#ifndef GPURUN_RUNTIME_LAUNCHER_STDIN_FORWARDER_H_
#define GPURUN_RUNTIME_LAUNCHER_STDIN_FORWARDER_H_

#include <memory>
#include <thread>

#include "runtime/base/status.h"
#include "runtime/launcher/unique_fd.h"

namespace gpurun::launcher {

class StdinForwarder {
 public:
  // Copies `from` (not owned) into `to` until EOF on `from`, an error on
  // `to`, or Stop; then closes `to` (rank 0 sees EOF).
  static StatusOr<std::unique_ptr<StdinForwarder>> Start(int from, UniqueFd to);
  ~StdinForwarder();  // Stop()
  StdinForwarder(const StdinForwarder&) = delete;
  StdinForwarder& operator=(const StdinForwarder&) = delete;

  // Ends the copy and joins the thread; returns promptly.
  void Stop();

 private:
  StdinForwarder() = default;
  void Run(int from, UniqueFd to);

  UniqueFd wake_read_;
  UniqueFd wake_write_;
  std::thread thread_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_STDIN_FORWARDER_H_
