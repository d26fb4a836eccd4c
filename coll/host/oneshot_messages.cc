// OneShotAllGather / OneShotBroadcast (oneshot_messages.h).
#include "coll/host/oneshot_messages.h"

#include <cstddef>
#include <cstring>

#include "coll/host/step_window.h"

namespace gpurun::coll {

Status OneShotAllGather(CommLink& link, const CollCall& call) {
  const int n = link.size(), r = link.rank();
  const size_t bytes = call.count * static_cast<size_t>(ElemSize(call.type));
  auto* recv = static_cast<std::byte*>(call.recv);
  StepWindow window(link, kOneShotAllGatherTag, "oneshot allgather");
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    if (!window.Post(to, call.send, bytes, from, recv + static_cast<size_t>(from) * bytes, bytes).ok()) break;
  }
  // After the posts, so this copy overlaps the peers' reads of `send`. In
  // place `send` is this rank's block already.
  std::byte* mine = recv + static_cast<size_t>(r) * bytes;
  if (call.send != mine) std::memcpy(mine, call.send, bytes);
  return window.Finish();
}

Status OneShotBroadcast(CommLink& link, const CollCall& call) {
  const int n = link.size(), r = link.rank();
  const size_t bytes = call.count * static_cast<size_t>(ElemSize(call.type));
  StepWindow window(link, kOneShotBroadcastTag, "oneshot broadcast");
  if (r != call.root) {
    (void)window.Post(-1, nullptr, 0, call.root, call.recv, bytes);
    return window.Finish();
  }
  for (int k = 1; k < n; ++k) {
    if (!window.Post((r + k) % n, call.send, bytes, -1, nullptr, 0).ok()) break;
  }
  if (call.send != call.recv) std::memcpy(call.recv, call.send, bytes);
  return window.Finish();
}

}  // namespace gpurun::coll
