// GpuColl's waits (gpu_coll.h): a null-stream call polls its completion
// event, checks both ring neighbours between polls (a failed peer sets the
// kernels' abort flag) and gives up GPURUN_TIMEOUT after the kernel's own
// waits would have; and the kernels' error record, turned into a Status that
// names the peer a kernel waited for.
#include <cuda_runtime.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>

#include "coll/gpu/gpu_coll.h"
#include "p2p/cuda_ipc/cuda_status.h"

namespace gpurun::coll {
namespace {

using Clock = std::chrono::steady_clock;

// Between peer checks while a kernel runs.
constexpr auto kPeerCheckEvery = std::chrono::microseconds(100);
// How long a kernel may take to see the abort flag and end.
constexpr auto kAbortGrace = std::chrono::seconds(10);

uint32_t LoadVolatile(const uint32_t* p) { return *reinterpret_cast<const volatile uint32_t*>(p); }

}  // namespace

Status GpuColl::CheckDeviceError() {
  if (LoadVolatile(&error_->code) == 0) [[likely]]
    return OkStatus();
  std::atomic_thread_fence(std::memory_order_acquire);
  DevError e;
  std::memcpy(&e, error_, sizeof(e));
  std::string what;
  if (e.channel != kDirectWaitChannel && (e.channel & kTreeWaitFlag) != 0) {
    what = std::string(e.sending != 0 ? "for " : "for data from ") + link_.DescribePeer(static_cast<int>(e.peer)) +
           (e.sending != 0 ? " to free a FIFO slot" : "") + " on GPU tree channel " +
           std::to_string(e.channel & ~kTreeWaitFlag) + " (step " + std::to_string(e.step) + ", counter at " +
           std::to_string(e.value) + ")";
  } else if (e.channel == kDirectWaitChannel) {
    const char* kind = e.sending == kTwoShotWaitInput     ? "its input for this rank's part in a two-shot allreduce"
                       : e.sending == kTwoShotWaitReduced ? "its reduced part in a two-shot allreduce"
                                                          : "its input in a one-shot allreduce";
    what = "for " + link_.DescribePeer(static_cast<int>(e.peer)) + " to send " + kind + " (flag " +
           std::to_string(e.step) + ", a line held flag " + std::to_string(e.value) + ")";
  } else {
    const int peer = ring_ == nullptr ? 0 : e.sending != 0 ? ring_->next() : ring_->prev();
    what = std::string(e.sending != 0 ? "for " : "for data from ") + link_.DescribePeer(peer) +
           (e.sending != 0 ? " to free a FIFO slot" : "") + " on GPU channel " + std::to_string(e.channel) + " (step " +
           std::to_string(e.step) + ", counter at " + std::to_string(e.value) + ")";
  }
  Status status = e.code == static_cast<uint32_t>(DevErrorCode::kTimeout)
                      ? TimeoutError("a GPU collective waited GPURUN_TIMEOUT " + what)
                      : RemoteError("a GPU collective was aborted while it waited " + what);
  // The proxy aborts the kernels when a NET connection fails: say which.
  if (net_ != nullptr) {
    if (Status net = net_->failure(); !net.ok()) {
      status = RemoteError(std::string(net.message()) + "; " + std::string(status.message()));
    }
  }
  broken_ = status.message();
  return status;
}

Status GpuColl::WaitDone() {
  auto event = static_cast<cudaEvent_t>(done_event_);
  GR_CUDA_RETURN_IF_ERROR(cudaEventRecord(event, nullptr));
  const int n = link_.size();
  // Ring neighbours, or the neighbours by rank before the first ring call.
  const int prev = ring_ != nullptr ? ring_->prev() : (link_.rank() + n - 1) % n;
  const int next = ring_ != nullptr ? ring_->next() : (link_.rank() + 1) % n;
  const auto start = Clock::now();
  auto next_check = start + kPeerCheckEvery;
  bool aborted = false;
  Clock::time_point abort_deadline;
  Status peer_status;
  for (uint64_t polls = 0;; ++polls) {
    const cudaError_t q = cudaEventQuery(event);
    if (q == cudaSuccess) break;
    if (q != cudaErrorNotReady) {
      broken_ = "a GPU collective kernel failed";
      return cuda::FromCuda(q, "cudaEventQuery after a GPU collective");
    }
    if (polls > 1000) sched_yield();
    const auto now = Clock::now();
    if (now < next_check) continue;
    next_check = now + kPeerCheckEvery;
    if (!aborted && n > 1) {
      peer_status = link_.CheckPeer(prev);
      if (peer_status.ok()) peer_status = link_.CheckPeer(next);
      if (tree_ != nullptr) {
        for (int peer : tree_->neighbours()) {
          if (peer_status.ok()) peer_status = link_.CheckPeer(peer);
        }
      }
      if (!peer_status.ok()) {
        *reinterpret_cast<volatile uint32_t*>(abort_) = 1;
        aborted = true;
        abort_deadline = now + kAbortGrace;
      }
    } else if (aborted && now > abort_deadline) {
      broken_ = "a GPU collective kernel did not end after its abort flag was set";
      return RemoteError(broken_ + " (" + std::string(peer_status.message()) + ")");
    }
  }
  if (aborted) {
    broken_ = std::string(peer_status.message());
    return peer_status;
  }
  return CheckDeviceError();
}

}  // namespace gpurun::coll
