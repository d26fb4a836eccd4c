// Gather(v) and scatter(v): linear at the root (schedule in coll_p2p.h). The
// root walks its peers from root + 1 on, so that with many ranks the ones
// just after the root are not always served last.

#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_window.h"

namespace gpurun {

Status Gatherv(RuntimeLink& link, const GathervCall& c, const char* what) {
  if (c.recv_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  StepWindow window(link, kTagP2pGather, what);
  if (r != c.root) {
    (void)window.Post(c.root, c.send, c.send_count * es, -1, nullptr, 0);
    return window.Finish();
  }
  const Blocks& d = c.recv_blocks;
  std::byte* mine = BlockAt(c.recv, d.Displ(r), d.Count(r), es);
  GR_RETURN_IF_ERROR(link.local_copy().Start(mine, c.send, c.send_count * es));  // overlaps the messages
  for (int k = 1; k < n; ++k) {
    const int p = (r + k) % n;
    if (!window.Post(-1, nullptr, 0, p, BlockAt(c.recv, d.Displ(p), d.Count(p), es), d.Count(p) * es).ok()) break;
  }
  const Status finished = window.Finish();
  const Status copied = link.local_copy().Wait();
  return finished.ok() ? copied : finished;
}

Status Scatterv(RuntimeLink& link, const ScattervCall& c, const char* what) {
  if (c.send_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  StepWindow window(link, kTagP2pScatter, what);
  if (r != c.root) {
    (void)window.Post(-1, nullptr, 0, c.root, c.recv, c.recv_count * es);
    return window.Finish();
  }
  const Blocks& s = c.send_blocks;
  const std::byte* mine = BlockAt(c.send, s.Displ(r), s.Count(r), es);
  GR_RETURN_IF_ERROR(link.local_copy().Start(c.recv, mine, c.recv_count * es));  // overlaps the messages
  for (int k = 1; k < n; ++k) {
    const int p = (r + k) % n;
    if (!window.Post(p, BlockAt(c.send, s.Displ(p), s.Count(p), es), s.Count(p) * es, -1, nullptr, 0).ok()) break;
  }
  const Status finished = window.Finish();
  const Status copied = link.local_copy().Wait();
  return finished.ok() ? copied : finished;
}

}  // namespace gpurun
