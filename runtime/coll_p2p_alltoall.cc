// Alltoall(v) by pairwise exchange (schedule in coll_p2p.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
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
    GR_RETURN_IF_ERROR(link.local_copy().Start(BlockAt(c.recv, d.Displ(r), d.Count(r), es),
                                               BlockAt(c.send, s.Displ(r), s.Count(r), es), self));
  }
  for (int k = 1; k < n; ++k) {
    const int to = (r + k) % n, from = (r - k + n) % n;
    GR_RETURN_IF_ERROR(window.Post(to, BlockAt(c.send, s.Displ(to), s.Count(to), es), s.Count(to) * es, from,
                                   BlockAt(c.recv, d.Displ(from), d.Count(from), es), d.Count(from) * es));
  }
  return OkStatus();
}

// Each pair swaps its two blocks at one step: partner (k - rank) mod n. The
// outgoing block is copied first: to a temporary of the step for host
// buffers; for GPU buffers every outgoing block at once into the
// communicator's GPU scratch (one device copy, and a buffer the peers have
// mapped already), since host temporaries would take GPU data through host
// memory twice.
Status InPlace(RuntimeLink& link, const AlltoallvCall& c, StepWindow& window) {
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  const Blocks& d = c.recv_blocks;
  auto* recv = static_cast<std::byte*>(c.recv);
  std::byte* copy = nullptr;  // GPU scratch holding recv's bytes from `low` on
  size_t low = 0;
  if (const int device = DeviceOrdinalOf(c.recv); device >= 0) {
    size_t high = 0;
    low = SIZE_MAX;
    for (int p = 0; p < n; ++p) {
      if (p == r || d.Count(p) == 0) continue;
      low = std::min(low, d.Displ(p) * es);
      high = std::max(high, (d.Displ(p) + d.Count(p)) * es);
    }
    if (high == 0) return OkStatus();  // nothing to exchange
    GR_ASSIGN_OR_RETURN(copy, link.device_scratch().Get(device, high - low));
    // On the link's own stream, waited for: a device-to-device cudaMemcpy
    // would return before the peers may read the copy.
    GR_RETURN_IF_ERROR(link.local_copy().Start(copy, recv + low, high - low));
    GR_RETURN_IF_ERROR(link.local_copy().Wait());
  }
  for (int k = 0; k < n; ++k) {
    const int p = ((k - r) % n + n) % n;
    if (p == r) continue;
    const size_t bytes = d.Count(p) * es;
    std::byte* block = BlockAt(c.recv, d.Displ(p), d.Count(p), es);
    if (copy != nullptr) {
      const std::byte* from = bytes == 0 ? nullptr : copy + (d.Displ(p) * es - low);
      GR_RETURN_IF_ERROR(window.Post(p, from, bytes, p, block, bytes));
      continue;
    }
    std::vector<std::byte> out(bytes);
    if (bytes > 0) std::memcpy(out.data(), block, bytes);
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
  const Status copied = link.local_copy().Wait();  // the block to self (OutOfPlace)
  return !posted.ok() ? posted : !finished.ok() ? finished : copied;
}

}  // namespace gpurun
