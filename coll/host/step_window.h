// StepWindow: the bounded window of point-to-point steps that collectives
// made of messages post over a CommLink (the runtime's alltoall(v),
// gather(v), scatter(v), allgatherv and barrier, runtime/coll_p2p.h; the
// executor's oneshot allgather and broadcast, oneshot_messages.h): at most
// kMaxStepsInFlight steps, each a receive and/or a send on one tag,
// completed oldest first. A step's partner is at the same step, so the
// window never deadlocks. After the first error no further step is posted;
// Finish still completes every posted request (their buffers are the
// caller's) and returns that first error. A received message of another size
// than posted is grInvalidUsage naming the sender (the sizes come from the
// user's counts). A step may own a temporary that its send reads from.
#ifndef GPURUN_COLL_HOST_STEP_WINDOW_H_
#define GPURUN_COLL_HOST_STEP_WINDOW_H_

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Steps of a window in flight per rank.
inline constexpr int kMaxStepsInFlight = 32;

class StepWindow {
 public:
  // `what`: the operation's name (a static string: "grGather").
  StepWindow(CommLink& link, int tag, const char* what) : link_(link), tag_(tag), what_(what) {}
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
  using Requests = std::array<LinkRequest*, 2>;

  void WaitOldest();
  void Record(const Status& status) {
    if (first_error_.ok()) first_error_ = status;
  }

  CommLink& link_;
  const int tag_;
  const char* const what_;
  // The steps in flight, oldest at `oldest_`: a fixed ring rather than a
  // std::deque, whose two allocations per window were a fifth of a 2-rank
  // 8-byte scatter's time (perf, 2026-12-02). Slots are written before they
  // are read, so the ring is left uninitialised; the temporaries (in-place
  // alltoall only) get their ring at the first one.
  std::array<Requests, kMaxStepsInFlight> steps_;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::unique_ptr<std::array<std::vector<std::byte>, kMaxStepsInFlight>> temps_;
  int oldest_ = 0;
  int in_flight_ = 0;
  Status first_error_;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_STEP_WINDOW_H_
