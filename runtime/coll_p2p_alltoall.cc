// Alltoall(v) by pairwise exchange (schedule in coll_p2p.h).
#include <vector>

#include "runtime/buffer_place.h"
#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_window.h"

namespace gpurun {
namespace {

Status OutOfPlace(RuntimeLink& link, const AlltoallvCall& c, StepWindow& window) {
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  const Blocks& s = c.send_blocks;
  const Blocks& d = c.recv_blocks;
  // The API layer checked that the block to self has one size on both sides.
  if (const size_t self = s.Count(r) * es; self > 0) {
    GR_RETURN_IF_ERROR(
        CopyBytes(BlockAt(c.recv, d.Displ(r), d.Count(r), es), BlockAt(c.send, s.Displ(r), s.Count(r), es), self));
  }
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    GR_RETURN_IF_ERROR(window.Post(to, BlockAt(c.send, s.Displ(to), s.Count(to), es), s.Count(to) * es, from,
                                   BlockAt(c.recv, d.Displ(from), d.Count(from), es), d.Count(from) * es));
  }
  return OkStatus();
}

// Each pair swaps its two blocks at one step: partner (k - rank) mod n.
Status InPlace(RuntimeLink& link, const AlltoallvCall& c, StepWindow& window) {
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  const Blocks& d = c.recv_blocks;
  for (int k = 0; k < n; ++k) {
    const int p = ((k - r) % n + n) % n;
    if (p == r) continue;
    const size_t bytes = d.Count(p) * es;
    std::byte* block = BlockAt(c.recv, d.Displ(p), d.Count(p), es);
    std::vector<std::byte> out(bytes);  // host memory whatever the buffer's: the engine moves any mix
    GR_RETURN_IF_ERROR(CopyBytes(out.data(), block, bytes));
    const std::byte* from = out.data();
    GR_RETURN_IF_ERROR(window.Post(p, from, bytes, p, block, bytes, std::move(out)));
  }
  return OkStatus();
}

}  // namespace

Status Alltoallv(RuntimeLink& link, const AlltoallvCall& call, const char* what) {
  if (call.recv_blocks.uniformly_empty()) return OkStatus();
  StepWindow window(link, kTagP2pAlltoall, what);
  const Status posted = call.in_place ? InPlace(link, call, window) : OutOfPlace(link, call, window);
  const Status finished = window.Finish();
  return posted.ok() ? finished : posted;
}

}  // namespace gpurun
