// The primitives' data path (primitives.h), once per protocol: per slice,
// receive (Simple: read in place from the FIFO; LL / LL128: unpack lines into
// scratch), combine, send (Simple: write into the peer's FIFO, then release
// the tail; LL / LL128: pack lines with flags). NET edges (net_proxy.h) use
// the local NetFifo with tail readiness for both protocols and kick the proxy
// after each publish.
#include "coll/host/primitives.h"

#include <cstring>
#include <type_traits>

#include "coll/host/host_wire.h"
#include "coll/host/net_proxy.h"

namespace gpurun::coll {
namespace {

constexpr const char* kData = "data from";
constexpr const char* kCredit = "credit (FIFO space) from";

template <typename P>
constexpr bool kInline = !std::is_same_v<P, ProtoSimple>;

// Waits on a NET FIFO's counter: `ready` over the local FifoHeader, running
// proxy passes meanwhile; a failure the proxy recorded ends the wait naming
// the peer.
template <typename Ready>
Status WaitNet(const WaitSite& site, NetFifo& fifo, NetProxy& proxy, uint64_t step, const char* what, Ready&& ready) {
  if (ready()) return OkStatus();
  GR_PRIMS_RETURN_IF_ERROR(WaitUntilSlow(
      site, fifo.peer, step, what,
      [&] {
        proxy.Poll();
        return ready() || fifo.failed.load(std::memory_order_acquire);
      },
      kNetQuickPolls));
  if (!ready()) return WaitError(site, fifo.peer, step, what, fifo.error);
  return OkStatus();
}

}  // namespace

template <typename P>
inline Status Prims<P>::RecvSlice(RecvConn& c, int k, uint64_t step, int nsteps, uint64_t bytes,
                                  const std::byte** data) {
  std::byte* slot = c.buf + SlotOffset(step, cfg_.buffer_bytes);
  if (c.net) [[unlikely]] {
    const uint64_t want = step + static_cast<uint64_t>(nsteps);
    GR_PRIMS_RETURN_IF_ERROR(
        WaitNet(cfg_.site, *c.fifo, *c.proxy, step, kData, [&] { return c.header->tail.load() >= want; }));
    if constexpr (std::is_same_v<P, ProtoLL128>) {
      return InternalError("LL128 on a NET edge");  // ConnGroup refuses it
    } else if constexpr (kInline<P>) {
      *data = cfg_.recv_scratch[k];
      Status s = HostWire<P>::UnpackSlot(slot, c.fifo->sizes[step % kFifoSteps], cfg_.recv_scratch[k], bytes, step);
      if (!s.ok()) return WaitError(cfg_.site, c.peer, step, kData, s);
      return OkStatus();
    } else {
      *data = slot;
      uint64_t arrived = 0;
      for (int i = 0; i < nsteps; ++i) arrived += c.fifo->sizes[(step + static_cast<uint64_t>(i)) % kFifoSteps];
      if (arrived != bytes) {
        return WaitError(cfg_.site, c.peer, step, kData,
                         InternalError("the slice carried " + std::to_string(arrived) + " bytes, expected " +
                                       std::to_string(bytes)));
      }
      return OkStatus();
    }
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
  c.header->head.post(step + static_cast<uint64_t>(nsteps));
}

template <typename P>
inline Status Prims<P>::SendSlot(SendConn& c, uint64_t step, int nsteps, uint64_t bytes, std::byte** slot) {
  *slot = kInline<P> ? cfg_.send_scratch : c.buf + SlotOffset(step, cfg_.buffer_bytes);
  // NET: every step is a message, empty ones too, so each needs its slot.
  if (kInline<P> && bytes == 0 && !c.net) return OkStatus();
  const uint64_t last = step + static_cast<uint64_t>(nsteps) - 1;
  if (SlotFree(last, c.head_seen)) return OkStatus();
  if (c.net) [[unlikely]] {
    return WaitNet(cfg_.site, *c.fifo, *c.proxy, step, kCredit,
                   [&] { return SlotFree(last, c.head_seen = c.header->head.load()); });
  }
  return WaitUntil(cfg_.site, c.peer, step, kCredit,
                   [&] { return SlotFree(last, c.head_seen = c.header->head.load()); });
}

template <typename P>
inline Status Prims<P>::PublishSend(SendConn& c, uint64_t step, int nsteps, const std::byte* data, uint64_t bytes) {
  if (c.net) [[unlikely]] {
    uint32_t* sizes = c.fifo->sizes;
    if constexpr (std::is_same_v<P, ProtoLL128>) {
      return InternalError("LL128 on a NET edge");  // ConnGroup refuses it
    } else if constexpr (kInline<P>) {
      sizes[step % kFifoSteps] =
          static_cast<uint32_t>(HostWire<P>::PackSlot(c.buf + SlotOffset(step, cfg_.buffer_bytes), data, bytes, step));
    } else {
      // The slice fills its steps' slots in order (they never wrap: Prims
      // rounds steps to chunks); one message per step.
      const uint64_t step_bytes = StepBytes(cfg_.buffer_bytes);
      uint64_t left = bytes;
      for (int i = 0; i < nsteps; ++i) {
        const uint64_t n = Min(left, step_bytes);
        sizes[(step + static_cast<uint64_t>(i)) % kFifoSteps] = static_cast<uint32_t>(n);
        left -= n;
      }
    }
    c.header->tail.post(step + static_cast<uint64_t>(nsteps));
    c.proxy->Kick();
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
Status Prims<P>::SkipNet() {
  net_skip_ = false;
  for (int k = 0; k < nsend_; ++k) {
    SendConn& c = *send_[k];
    if (!c.net || c.step == send_from_[k]) continue;
    const uint64_t last = c.step - 1;
    GR_PRIMS_RETURN_IF_ERROR(WaitNet(cfg_.site, *c.fifo, *c.proxy, send_from_[k], kCredit,
                                     [&] { return SlotFree(last, c.head_seen = c.header->head.load()); }));
    for (uint64_t s = send_from_[k]; s < c.step; ++s) c.fifo->sizes[s % kFifoSteps] = 0;
    c.header->tail.post(c.step);
    c.proxy->Kick();
  }
  for (int k = 0; k < nrecv_; ++k) {
    RecvConn& c = *recv_[k];
    if (!c.net || c.step == recv_from_[k]) continue;
    const uint64_t want = c.step;
    GR_PRIMS_RETURN_IF_ERROR(
        WaitNet(cfg_.site, *c.fifo, *c.proxy, recv_from_[k], kData, [&] { return c.header->tail.load() >= want; }));
    c.header->head.post(c.step);
  }
  return OkStatus();
}

template <typename P>
Status Prims<P>::Op(const void* src, void* dst, uint64_t n, unsigned flags) {
  if (net_skip_) [[unlikely]]
    GR_PRIMS_RETURN_IF_ERROR(SkipNet());
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
        // LL / LL128 pack lines from any buffer: straight from the result
        // instead of through the send scratch.
        if (kInline<P>) {
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

template class Prims<ProtoLL>;
template class Prims<ProtoLL128>;
template class Prims<ProtoSimple>;

}  // namespace gpurun::coll
