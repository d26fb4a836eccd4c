// One-shot AllReduce: per chunk, every rank sends
// its piece of the input to every peer, then receives the peers' pieces and
// reduces the n inputs in RANK ORDER, ((x0 op x1) op x2) ... op x(n-1), with
// avg's division once at the end, so every rank computes bit-identical
// results (a float sum is commutative but not associative; one fixed
// grouping on every rank is what makes them agree). One hop instead of the
// ring's 2(n-1); n - 1 times the ring's sends per rank, so for small sizes.
// Across hosts the edges between hosts are NET connectors (net_proxy.h): the
// one hop is then one NET message each way instead of the ring's 2(n-1)
// steps with 2(nodes-1) of them on NET.
//
// Sending a chunk to all peers before receiving it from any keeps at most
// one chunk (one step: ChunkStepsFor gives oneshot {1, 1}) in flight per
// edge beyond what its receiver has consumed, so kFifoSteps-step FIFOs
// cannot deadlock. The accumulator is the output, but when in place off
// rank 0, where the output still holds this rank's input until its turn:
// then a scratch step (recv_scratch[1], free with one receive peer per
// primitive call), copied out at the end.
#include <cstring>

#include "coll/host/algorithms.h"
#include "coll/host/fifo_sizes.h"
#include "coll/patterns/chunking.h"

namespace gpurun::coll {

template <typename P>
Status OneShotAllReduce(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  const PrimConfig& cfg = *a.config;
  const int n = w.nranks, me = w.ring_index;
  const auto es = static_cast<uint64_t>(w.elem_size);
  const bool in_place = a.send == a.recv;
  RecvConn* const recv = a.group->peer_recv.data();
  SendConn* const send = a.group->peer_send.data();
  // Primitives over the one edge pair with `peer` (Prims takes arrays of connectors).
  auto with = [&](int peer, int nrecv, int nsend) {
    RecvConn* r = &recv[peer];
    SendConn* s = &send[peer];
    return Prims<P>(cfg, &r, nrecv, &s, nsend);
  };
  if (in_place && me != 0 && w.chunk_count * es > kHostMaxStepDataBytes) {
    return InternalError("oneshot chunk of " + std::to_string(w.chunk_count * es) + " bytes exceeds the scratch step");
  }
  for (uint64_t loop = 0; loop < w.loops; ++loop) {
    const Range ch = LoopChunk(w.part_count, w.chunk_count, loop);
    const uint64_t off = (w.part_offset + ch.offset) * es;
    const std::byte* mine = a.send + off;
    std::byte* out = a.recv + off;
    // Send to every peer, starting after this rank so that not all ranks
    // write into rank 0 first.
    for (int i = 1; i < n; ++i) {
      const int p = (me + i) % n;
      GR_PRIMS_RETURN_IF_ERROR(with(p, 0, 1).Send(mine, ch.count));
    }
    std::byte* acc = (in_place && me != 0) ? cfg.recv_scratch[1] : out;
    const std::byte* cur = nullptr;  // the reduction so far (null: nothing yet)
    for (int q = 0; q < n; ++q) {
      if (q == me) {
        if (cur == nullptr) {
          cur = mine;
        } else {
          cfg.reduce(acc, cur, mine, ch.count);
          cur = acc;
        }
        continue;
      }
      Prims<P> prims = with(q, 1, 0);
      if (cur == nullptr) {
        GR_PRIMS_RETURN_IF_ERROR(prims.Recv(acc, ch.count));
      } else {
        GR_PRIMS_RETURN_IF_ERROR(prims.RecvReduceCopy(cur, acc, ch.count, false));
      }
      cur = acc;
    }
    if (w.op == RedOp::kAvg) cfg.divide(acc, ch.count, cfg.divisor);
    if (acc != out && ch.count > 0) std::memcpy(out, acc, ch.count * es);
  }
  for (int p = 0; p < n; ++p) {
    if (p != me) GR_PRIMS_RETURN_IF_ERROR(with(p, 0, 1).Finish());
  }
  return OkStatus();
}

GR_INSTANTIATE_HOST_ALGO(OneShotAllReduce);

}  // namespace gpurun::coll
