// StepWindow: the bounded window of point-to-point steps that the
// point-to-point collectives (coll_p2p.h) post: at most kMaxStepsInFlight
// steps, each a receive and/or a send on one tag, completed oldest first.
// After the first error no further step is posted; Finish still completes
// every posted request (their buffers are the caller's) and returns that
// first error. A step may own a temporary that its send reads from.
#ifndef GPURUN_RUNTIME_COLL_P2P_WINDOW_H_
#define GPURUN_RUNTIME_COLL_P2P_WINDOW_H_

#include <array>
#include <cstddef>
#include <deque>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/coll_link.h"

namespace gpurun {

class StepWindow {
 public:
  // `what`: the C call's name (a static string).
  StepWindow(RuntimeLink& link, int tag, const char* what) : link_(link), tag_(tag), what_(what) {}
  // Completes what is still posted (Finish not called: an early return).
  ~StepWindow();
  StepWindow(const StepWindow&) = delete;
  StepWindow& operator=(const StepWindow&) = delete;

  // One step: receive `recv_bytes` from recv_peer into `recv` and send
  // `send_bytes` at `send` to send_peer; a peer of -1 skips that half.
  // `temp`, if given, is kept until the step completes (send may point into it).
  // Returns the first error so far (the step is then not posted).
  Status Post(int send_peer, const void* send, size_t send_bytes, int recv_peer, void* recv, size_t recv_bytes,
              std::vector<std::byte> temp = {});
  // Completes every posted step; the first error of the whole window.
  Status Finish();

 private:
  struct Step {
    std::array<coll::LinkRequest*, 2> requests{nullptr, nullptr};
    std::vector<std::byte> temp;
  };

  void WaitOldest();
  void Record(const Status& status) {
    if (first_error_.ok()) first_error_ = status;
  }

  RuntimeLink& link_;
  const int tag_;
  const char* const what_;
  std::deque<Step> steps_;
  Status first_error_;
};

// `base` + displ elements, or null when the block is empty (base may be null then).
inline std::byte* BlockAt(void* base, size_t displ, size_t count, size_t elem_size) {
  return count == 0 ? nullptr : static_cast<std::byte*>(base) + displ * elem_size;
}
inline const std::byte* BlockAt(const void* base, size_t displ, size_t count, size_t elem_size) {
  return count == 0 ? nullptr : static_cast<const std::byte*>(base) + displ * elem_size;
}

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_P2P_WINDOW_H_
