// OneShotAllGather / OneShotBroadcast (oneshot_messages.h).
#include "coll/host/oneshot_messages.h"

#include <array>
#include <cstddef>
#include <cstring>
#include <span>

namespace gpurun::coll {
namespace {

// Up to kOneShotStepsInFlight steps' requests (a send and a receive each),
// completed together by Flush. The first error, of a post or a wait, sticks;
// after it nothing more is posted but what was posted is still completed.
class StepBatch {
 public:
  StepBatch(CommLink& link, const char* what) : link_(link), what_(what) {}

  bool ok() const { return status_.ok(); }
  void Send(int peer, int tag, const void* data, size_t bytes) { Add(link_.Isend(peer, tag, data, bytes)); }
  void Recv(int peer, int tag, void* data, size_t bytes) { Add(link_.Irecv(peer, tag, data, bytes)); }
  // Completes the batch when `step` (0-based) fills it; Finish completes the rest.
  void EndStep(int step) {
    if ((step + 1) % kOneShotStepsInFlight == 0) Flush();
  }
  Status Finish() {
    Flush();
    return status_;
  }

 private:
  void Add(StatusOr<LinkRequest*> request) {
    if (!request.ok()) {
      if (status_.ok()) status_ = request.status();
      return;
    }
    requests_[size_++] = *request;
  }
  void Flush() {
    if (size_ == 0) return;
    const Status waited = link_.WaitAll(std::span<LinkRequest*>(requests_.data(), size_), what_);
    if (status_.ok()) status_ = waited;
    size_ = 0;
  }

  CommLink& link_;
  const char* what_;
  std::array<LinkRequest*, 2 * kOneShotStepsInFlight> requests_{};
  size_t size_ = 0;
  Status status_;
};

}  // namespace

Status OneShotAllGather(CommLink& link, const CollCall& call) {
  const int n = link.size(), r = link.rank();
  const size_t bytes = call.count * static_cast<size_t>(ElemSize(call.type));
  auto* recv = static_cast<std::byte*>(call.recv);
  StepBatch batch(link, "oneshot allgather");
  for (int k = 1; k < n && batch.ok(); ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    batch.Send(to, kOneShotAllGatherTag, call.send, bytes);
    batch.Recv(from, kOneShotAllGatherTag, recv + static_cast<size_t>(from) * bytes, bytes);
    batch.EndStep(k - 1);
  }
  // After the posts, so this copy overlaps the peers' reads of `send`. In
  // place `send` is this rank's block already.
  std::byte* mine = recv + static_cast<size_t>(r) * bytes;
  if (call.send != mine) std::memcpy(mine, call.send, bytes);
  return batch.Finish();
}

Status OneShotBroadcast(CommLink& link, const CollCall& call) {
  const int n = link.size(), r = link.rank();
  const size_t bytes = call.count * static_cast<size_t>(ElemSize(call.type));
  StepBatch batch(link, "oneshot broadcast");
  if (r != call.root) {
    batch.Recv(call.root, kOneShotBroadcastTag, call.recv, bytes);
    return batch.Finish();
  }
  for (int k = 1; k < n && batch.ok(); ++k) {
    batch.Send((r + k) % n, kOneShotBroadcastTag, call.send, bytes);
    batch.EndStep(k - 1);
  }
  if (call.send != call.recv) std::memcpy(call.recv, call.send, bytes);
  return batch.Finish();
}

}  // namespace gpurun::coll
