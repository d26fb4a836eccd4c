// Allgatherv by direct pairwise exchange, and the dissemination barrier
// (schedules and the choice of algorithm in coll_p2p.h).

#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_window.h"

namespace gpurun {

Status Allgatherv(RuntimeLink& link, const AllgathervCall& c, const char* what) {
  if (c.recv_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  const Blocks& d = c.recv_blocks;
  std::byte* mine = BlockAt(c.recv, d.Displ(r), d.Count(r), es);
  // The API layer checked recvcounts[rank] == sendcount; in place, send ==
  // mine. The peers get c.send itself, so the copy to mine overlaps them.
  GR_RETURN_IF_ERROR(link.local_copy().Start(mine, c.send, c.send_count * es));
  StepWindow window(link, kTagP2pAllgatherv, what);
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    if (!window
             .Post(to, c.send, c.send_count * es, from, BlockAt(c.recv, d.Displ(from), d.Count(from), es),
                   d.Count(from) * es)
             .ok()) {
      break;
    }
  }
  const Status finished = window.Finish();
  const Status copied = link.local_copy().Wait();
  return finished.ok() ? copied : finished;
}

Status DisseminationBarrier(RuntimeLink& link, const char* what) {
  const int n = link.size(), r = link.rank();
  for (int distance = 1; distance < n; distance *= 2) {
    // Rounds depend on each other: each is its own window.
    StepWindow round(link, kTagLinkBarrier, what);
    (void)round.Post((r + distance) % n, nullptr, 0, (r - distance + n) % n, nullptr, 0);
    GR_RETURN_IF_ERROR(round.Finish());
  }
  return OkStatus();
}

}  // namespace gpurun
