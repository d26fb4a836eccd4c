// The primitives' data path (primitives.h), once per protocol: per slice,
// receive (Simple: read in place from the FIFO; LL / LL128: unpack lines into
// scratch; across hosts: one message), combine, send (Simple: write into the
// peer's FIFO, then release the tail; LL / LL128: pack lines with flags).
#include "coll/host/primitives.h"

#include <cstring>
#include <type_traits>

#include "coll/host/host_wire.h"

namespace gpurun::coll {
namespace {

constexpr const char* kData = "data from";
constexpr const char* kCredit = "credit (FIFO space) from";
constexpr const char* kSent = "completion of a message to";

template <typename P>
constexpr bool kInline = !std::is_same_v<P, ProtoSimple>;

// Waits until a cross-host request completed (Test frees it).
Status WaitRequest(const WaitSite& site, int peer, uint64_t step, const char* what, LinkRequest** request) {
  Status error;
  GR_RETURN_IF_ERROR(WaitUntil(site, peer, step, what, [&] {
    bool done = false;
    if (Status s = site.link->Test(request, &done); !s.ok()) {
      error = s;
      return true;
    }
    return done;
  }));
  if (!error.ok()) return WaitError(site, peer, step, what, error);
  *request = nullptr;
  return OkStatus();
}

}  // namespace

template <typename P>
inline Status Prims<P>::RecvSlice(RecvConn& c, int k, uint64_t step, int nsteps, uint64_t bytes,
                                  const std::byte** data) {
  std::byte* slot = c.buf + SlotOffset(step, cfg_.buffer_bytes);
  if (c.net) {
    *data = slot;
    if (bytes == 0) return OkStatus();
    GR_ASSIGN_OR_RETURN(LinkRequest * request, cfg_.site.link->Irecv(c.peer, c.tag, slot, bytes));
    return WaitRequest(cfg_.site, c.peer, step, kData, &request);
  }
  if constexpr (kInline<P>) {
    *data = cfg_.recv_scratch[k];
    return HostWire<P>::Unpack(c.buf, cfg_.buffer_bytes, cfg_.recv_scratch[k], bytes, step,
                               [&](auto&& ready) { return WaitUntil(cfg_.site, c.peer, step, kData, ready); });
  } else {
    *data = slot;
    const uint64_t want = step + static_cast<uint64_t>(nsteps);
    return WaitUntil(cfg_.site, c.peer, step, kData, [&] { return c.header->tail.load() >= want; });
  }
}

template <typename P>
inline void Prims<P>::ReleaseRecv(RecvConn& c, uint64_t step, int nsteps) {
  if (!c.net) c.header->head.post(step + static_cast<uint64_t>(nsteps));
}

template <typename P>
inline Status Prims<P>::SendSlot(SendConn& c, uint64_t step, int nsteps, uint64_t bytes, std::byte** slot) {
  if (c.net) {
    LinkRequest*& pending = c.pending[step % kFifoSteps];
    if (pending != nullptr) GR_PRIMS_RETURN_IF_ERROR(WaitRequest(cfg_.site, c.peer, step, kSent, &pending));
    *slot = c.buf + SlotOffset(step, cfg_.buffer_bytes);
    return OkStatus();
  }
  *slot = kInline<P> ? cfg_.send_scratch : c.buf + SlotOffset(step, cfg_.buffer_bytes);
  if (kInline<P> && bytes == 0) return OkStatus();
  const uint64_t last = step + static_cast<uint64_t>(nsteps) - 1;
  if (SlotFree(last, c.head_seen)) return OkStatus();
  return WaitUntil(cfg_.site, c.peer, step, kCredit,
                   [&] { return SlotFree(last, c.head_seen = c.header->head.load()); });
}

template <typename P>
inline Status Prims<P>::PublishSend(SendConn& c, uint64_t step, int nsteps, const std::byte* data, uint64_t bytes) {
  if (c.net) {
    if (bytes == 0) return OkStatus();
    GR_ASSIGN_OR_RETURN(c.pending[step % kFifoSteps], cfg_.site.link->Isend(c.peer, c.tag, data, bytes));
    return OkStatus();
  }
  if constexpr (kInline<P>) {
    if (bytes != 0) {
      HostWire<P>::Pack(c.buf, cfg_.buffer_bytes, data, bytes, step);
    }
  } else {
    c.header->tail.post(step + static_cast<uint64_t>(nsteps));
  }
  return OkStatus();
}

template <typename P>
Status Prims<P>::Op(const void* src, void* dst, uint64_t n, unsigned flags) {
  const ChunkSteps cs = cfg_.steps;
  const int slices = cs.SlicesPerChunk();
  const int nsteps = cs.slice_steps;
  const auto esize = static_cast<uint64_t>(cfg_.elem_size);
  const int nrecv = (flags & kRecv) ? nrecv_ : 0;
  const int nsend = (flags & kSend) ? nsend_ : 0;
  for (int s = 0; s < slices; ++s) {
    const Range r = slices == 1 ? Range{0, n} : ChunkSlice(n, cfg_.step_elems, cs, s);
    const uint64_t bytes = r.count * esize;
    const uint64_t off = r.offset * esize;
    const uint64_t first = static_cast<uint64_t>(s * nsteps);
    const std::byte* in[kMaxPrimPeers] = {};
    std::byte* out[kMaxPrimPeers] = {};
    for (int k = 0; k < nrecv; ++k) {
      RecvConn& c = *recv_[k];
      GR_PRIMS_RETURN_IF_ERROR(RecvSlice(c, k, c.step + first, nsteps, bytes, &in[k]));
    }
    for (int k = 0; k < nsend; ++k) {
      SendConn& c = *send_[k];
      GR_PRIMS_RETURN_IF_ERROR(SendSlot(c, c.step + first, nsteps, bytes, &out[k]));
    }
    const std::byte* data[kMaxPrimPeers] = {out[0], out[1]};  // what each send publishes
    if (bytes > 0) {
      const std::byte* ins[1 + kMaxPrimPeers] = {};
      int nin = 0;
      if (flags & kSrc) ins[nin++] = static_cast<const std::byte*>(src) + off;
      for (int k = 0; k < nrecv; ++k) ins[nin++] = in[k];
      const std::byte* result = ins[0];  // one input, nothing to write: sent as it is
      if (nin != 1 || (flags & (kDst | kPost))) {
        std::byte* target = (flags & kDst) ? static_cast<std::byte*>(dst) + off : out[0];
        if (nin == 1) {
          if (ins[0] != target) std::memcpy(target, ins[0], bytes);
        } else {
          cfg_.reduce(target, ins[0], ins[1], r.count);
          for (int i = 2; i < nin; ++i) cfg_.reduce(target, target, ins[i], r.count);
        }
        if (flags & kPost) cfg_.divide(target, r.count, cfg_.divisor);
        result = target;
      }
      for (int k = 0; k < nsend; ++k) {
        if (out[k] == result) continue;
        // LL / LL128 on this host pack lines from any buffer: straight from
        // the result instead of through the send scratch.
        if (kInline<P> && !send_[k]->net) {
          data[k] = result;
        } else {
          std::memcpy(out[k], result, bytes);
        }
      }
    }
    for (int k = 0; k < nsend; ++k) {
      SendConn& c = *send_[k];
      GR_PRIMS_RETURN_IF_ERROR(PublishSend(c, c.step + first, nsteps, data[k], bytes));
    }
    for (int k = 0; k < nrecv; ++k) ReleaseRecv(*recv_[k], recv_[k]->step + first, nsteps);
  }
  for (int k = 0; k < nrecv; ++k) recv_[k]->step += static_cast<uint64_t>(cs.chunk_steps);
  for (int k = 0; k < nsend; ++k) send_[k]->step += static_cast<uint64_t>(cs.chunk_steps);
  return OkStatus();
}

template <typename P>
Status Prims<P>::FinishNet() {
  for (int k = 0; k < nsend_; ++k) {
    SendConn& c = *send_[k];
    if (!c.net) continue;
    for (int slot = 0; slot < kFifoSteps; ++slot) {
      if (c.pending[slot] != nullptr)
        GR_PRIMS_RETURN_IF_ERROR(WaitRequest(cfg_.site, c.peer, c.step, kSent, &c.pending[slot]));
    }
  }
  return OkStatus();
}

template class Prims<ProtoLL>;
template class Prims<ProtoLL128>;
template class Prims<ProtoSimple>;

}  // namespace gpurun::coll
