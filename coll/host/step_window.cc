// StepWindow (step_window.h).
#include "coll/host/step_window.h"

#include <utility>

namespace gpurun::coll {

StepWindow::~StepWindow() { (void)Finish(); }

void StepWindow::WaitOldest() {
  Step& oldest = steps_.front();
  Record(link_.WaitAllSized(oldest.requests, what_, grInvalidUsage));
  steps_.pop_front();
}

Status StepWindow::Post(int send_peer, const void* send, size_t send_bytes, int recv_peer, void* recv,
                        size_t recv_bytes, std::vector<std::byte> temp) {
  if (static_cast<int>(steps_.size()) >= kMaxStepsInFlight) WaitOldest();
  if (!first_error_.ok()) return first_error_;
  Step step;
  step.temp = std::move(temp);
  if (recv_peer >= 0) {
    StatusOr<LinkRequest*> r = link_.Irecv(recv_peer, tag_, recv, recv_bytes, what_);
    if (!r.ok()) {
      Record(r.status());
      return first_error_;
    }
    step.requests[0] = *r;
  }
  if (send_peer >= 0) {
    StatusOr<LinkRequest*> r = link_.Isend(send_peer, tag_, send, send_bytes, what_);
    if (!r.ok()) Record(r.status());
    if (r.ok()) step.requests[1] = *r;
  }
  steps_.push_back(std::move(step));
  return first_error_;
}

Status StepWindow::Finish() {
  while (!steps_.empty()) WaitOldest();
  return first_error_;
}

}  // namespace gpurun::coll
