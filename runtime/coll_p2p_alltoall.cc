// Alltoall(v) by pairwise exchange (schedule in coll_p2p.h).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "runtime/buffer_place.h"
#include "runtime/coll_p2p.h"
#include "runtime/coll_p2p_window.h"

namespace gpurun {
namespace {

// Out of place: starts the copy of this rank's block to itself (waited for by
// the caller). The API layer checked that it has one size on both sides.
Status StartSelfCopy(RuntimeLink& link, const AlltoallvCall& c) {
  const int r = link.rank();
  const size_t es = c.elem_size, self = c.send_blocks.Count(r) * es;
  if (self == 0) return OkStatus();
  return link.local_copy().Start(BlockAt(c.recv, c.recv_blocks.Displ(r), c.recv_blocks.Count(r), es),
                                 BlockAt(c.send, c.send_blocks.Displ(r), c.send_blocks.Count(r), es), self);
}

Status OutOfPlace(RuntimeLink& link, const AlltoallvCall& c, StepWindow& window) {
  const int n = link.size(), r = link.rank();
  const size_t es = c.elem_size;
  const Blocks& s = c.send_blocks;
  const Blocks& d = c.recv_blocks;
  GR_RETURN_IF_ERROR(StartSelfCopy(link, c));
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

// Two ranks: one send started first (it never blocks, so two sends of
// rendezvous size never wait on each other) and a blocking receive; neither
// makes a request when its message moves at once. In place (host buffers)
// the outgoing block goes from a copy, on the stack when it is small.
Status Pair(RuntimeLink& link, const AlltoallvCall& c, const char* what) {
  const int r = link.rank(), p = 1 - r;
  const size_t es = c.elem_size;
  const Blocks& d = c.recv_blocks;
  std::byte* const into = BlockAt(c.recv, d.Displ(p), d.Count(p), es);
  constexpr size_t kStackBytes = 1024;
  std::array<std::byte, kStackBytes> small;  // NOLINT(cppcoreguidelines-pro-type-member-init): written before read
  std::vector<std::byte> large;
  const void* out = nullptr;
  size_t out_bytes = 0;
  if (c.in_place) {
    out_bytes = d.Count(p) * es;
    std::byte* copy = small.data();
    if (out_bytes > kStackBytes) {
      large.resize(out_bytes);
      copy = large.data();
    }
    if (out_bytes > 0) std::memcpy(copy, into, out_bytes);
    out = copy;
  } else {
    const Blocks& s = c.send_blocks;
    GR_RETURN_IF_ERROR(StartSelfCopy(link, c));
    out = BlockAt(c.send, s.Displ(p), s.Count(p), es);
    out_bytes = s.Count(p) * es;
  }
  coll::LinkRequest* send = nullptr;
  Status received = link.StartSend(p, kTagP2pAlltoall, out, out_bytes, what, &send);
  if (received.ok()) received = link.Recv(p, kTagP2pAlltoall, into, d.Count(p) * es, what, grInvalidUsage);
  if (send != nullptr) {  // not sent at once: wait for it whatever the receive did (`out` must outlive it)
    const Status waited = link.WaitAll(std::span<coll::LinkRequest*>(&send, 1), what);
    if (received.ok()) received = waited;
  }
  const Status copied = link.local_copy().Wait();
  return received.ok() ? copied : received;
}

}  // namespace

Status Alltoallv(RuntimeLink& link, const AlltoallvCall& call, const char* what) {
  if (call.recv_blocks.uniformly_empty()) return OkStatus();
  if (link.size() == 2 && (!call.in_place || DeviceOrdinalOf(call.recv) < 0)) return Pair(link, call, what);
  StepWindow window(link, kTagP2pAlltoall, what);
  const Status posted = call.in_place ? InPlace(link, call, window) : OutOfPlace(link, call, window);
  const Status finished = window.Finish();
  const Status copied = link.local_copy().Wait();  // the block to self (OutOfPlace)
  return !posted.ok() ? posted : !finished.ok() ? finished : copied;
}

}  // namespace gpurun
