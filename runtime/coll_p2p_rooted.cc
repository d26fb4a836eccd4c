// Gather(v) and scatter(v): linear at the root (schedule in coll_p2p.h). The
// root walks its peers from root + 1 on, so that with many ranks the ones
// just after the root are not always served last.
//
// A non-root rank has one message, which its root surely posts the matching
// operation for, and so does a root of two ranks: those use the link's
// blocking Send/Recv, which skip the request (and the window) when the
// message fits an eager slot or has arrived already — most of a small
// 2-rank gather's or scatter's time otherwise (perf, 2026-12-03).

#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_window.h"

namespace gpurun {
namespace {

// The root's own block copy, started before and waited after `messages`.
template <typename Messages>
Status WithLocalCopy(RuntimeLink& link, void* to, const void* from, size_t bytes, Messages messages) {
  GR_RETURN_IF_ERROR(link.local_copy().Start(to, from, bytes));  // overlaps the messages
  const Status moved = messages();
  const Status copied = link.local_copy().Wait();
  return moved.ok() ? copied : moved;
}

}  // namespace

Status Gatherv(RuntimeLink& link, const GathervCall& c, const char* what) {
  if (c.recv_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  if (r != c.root) return link.Send(c.root, kTagP2pGather, c.send, c.send_count * es, what);
  const Blocks& d = c.recv_blocks;
  std::byte* mine = BlockAt(c.recv, d.Displ(r), d.Count(r), es);
  return WithLocalCopy(link, mine, c.send, c.send_count * es, [&] {
    if (n == 2) {
      const int p = 1 - r;
      return link.Recv(p, kTagP2pGather, BlockAt(c.recv, d.Displ(p), d.Count(p), es), d.Count(p) * es, what,
                       grInvalidUsage);
    }
    StepWindow window(link, kTagP2pGather, what);
    for (int k = 1; k < n; ++k) {
      const int p = (r + k) % n;
      if (!window.Post(-1, nullptr, 0, p, BlockAt(c.recv, d.Displ(p), d.Count(p), es), d.Count(p) * es).ok()) break;
    }
    return window.Finish();
  });
}

Status Scatterv(RuntimeLink& link, const ScattervCall& c, const char* what) {
  if (c.send_blocks.uniformly_empty()) return OkStatus();
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  if (r != c.root) return link.Recv(c.root, kTagP2pScatter, c.recv, c.recv_count * es, what, grInvalidUsage);
  const Blocks& s = c.send_blocks;
  const std::byte* mine = BlockAt(c.send, s.Displ(r), s.Count(r), es);
  return WithLocalCopy(link, c.recv, mine, c.recv_count * es, [&] {
    if (n == 2) {
      const int p = 1 - r;
      return link.Send(p, kTagP2pScatter, BlockAt(c.send, s.Displ(p), s.Count(p), es), s.Count(p) * es, what);
    }
    StepWindow window(link, kTagP2pScatter, what);
    for (int k = 1; k < n; ++k) {
      const int p = (r + k) % n;
      if (!window.Post(p, BlockAt(c.send, s.Displ(p), s.Count(p), es), s.Count(p) * es, -1, nullptr, 0).ok()) break;
    }
    return window.Finish();
  });
}

}  // namespace gpurun
