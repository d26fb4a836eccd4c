// StepWindow (step_window.h).
#include "coll/host/step_window.h"

#include <utility>

namespace gpurun::coll {

StepWindow::~StepWindow() { (void)Finish(); }

void StepWindow::WaitOldest() {
  Record(link_.WaitAllSized(steps_[oldest_], what_, grInvalidUsage));
  if (temps_ != nullptr) std::vector<std::byte>().swap((*temps_)[oldest_]);  // its memory goes now
  oldest_ = (oldest_ + 1) % kMaxStepsInFlight;
  --in_flight_;
}

Status StepWindow::Post(int send_peer, const void* send, size_t send_bytes, int recv_peer, void* recv,
                        size_t recv_bytes, std::vector<std::byte> temp) {
  if (in_flight_ >= kMaxStepsInFlight) WaitOldest();
  if (!first_error_.ok()) return first_error_;
  const int slot = (oldest_ + in_flight_) % kMaxStepsInFlight;
  Requests& step = steps_[slot];
  step = {nullptr, nullptr};
  if (recv_peer >= 0) {
    StatusOr<LinkRequest*> r = link_.Irecv(recv_peer, tag_, recv, recv_bytes, what_);
    if (!r.ok()) {
      Record(r.status());
      return first_error_;
    }
    step[0] = *r;
  }
  if (send_peer >= 0) {
    StatusOr<LinkRequest*> r = link_.Isend(send_peer, tag_, send, send_bytes, what_);
    if (!r.ok()) Record(r.status());
    if (r.ok()) step[1] = *r;
  }
  if (!temp.empty()) {
    if (temps_ == nullptr) temps_ = std::make_unique<std::array<std::vector<std::byte>, kMaxStepsInFlight>>();
    (*temps_)[slot] = std::move(temp);
  }
  ++in_flight_;
  return first_error_;
}

Status StepWindow::Finish() {
  while (in_flight_ > 0) WaitOldest();
  return first_error_;
}

}  // namespace gpurun::coll
