// Device primitives of the Simple protocol (NCCL prims_simple.h): one block
// drives one channel's connections (prims_peers.cuh: a ring's pair, or a
// tree phase's up to two receiving and two sending ones). Each primitive call moves one
// chunk in ChunkSteps().SlicesPerChunk() slices, exactly as the host
// executor's Prims<ProtoSimple> (coll/host/primitives.cc) does, so both sides
// of an edge agree on steps and slice sizes: per slice, thread 0 waits for
// the data (tail) and for a free slot (head), the block moves the data
// (reduce_copy.cuh), then thread 0 publishes it — a system-scope fence after
// the block barrier, so every thread's stores to the peer's FIFO are visible
// before the tail counter — and releases the slot it read. A NET sending
// connection (net_sizes set) also gets each step's byte count before the
// fence, for the proxy that sends it.
#ifndef GPURUN_COLL_DEVICE_PRIMS_SIMPLE_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_SIMPLE_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/prims_calls.cuh"
#include "coll/device/prims_peers.cuh"
#include "coll/device/reduce_copy.cuh"
#include "coll/device/sync.cuh"
#include "coll/patterns/chunking.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <DataType D, typename RedFn, int Fan = 1>
class PrimsSimple : public PrimsCalls<PrimsSimple<D, RedFn, Fan>, typename Elem<D>::Storage> {
 public:
  using S = typename Elem<D>::Storage;

  // `peers` is the block's connections (shared memory); steps are rounded
  // up to a whole chunk as the host executor does, and the receiver returns
  // the skipped steps' credit at once (NCCL's loadRecvConn does too): they
  // carry nothing, and a head left behind shrinks the sender's FIFO by up to
  // chunk_steps - 1 slots, which deadlocked the host ring (primitives.h).
  __device__ PrimsSimple(const DevLaunch& l, const WorkDesc& w, const DevPeers<Fan>* peers, int* failed)
      : l_(l), peers_(peers), failed_(failed) {
    steps_.chunk_steps = w.chunk_steps;
    steps_.slice_steps = w.slice_steps;
    step_elems_ = w.step_elems;
    divisor_ = w.op == RedOp::kAvg ? l.divisor : 0u;
    const uint64_t round = static_cast<uint64_t>(w.chunk_steps);
    recv_step_ = AlignUp(peers->recv_step, round);
    send_step_ = AlignUp(peers->send_step, round);
    net_from_ = peers->send_step;
    if (threadIdx.x == 0 && recv_step_ != peers->recv_step) {
      for (int k = 0; k < Fan && k < peers->nrecv; ++k) StoreReleaseSys(peers->recv[k].head, recv_step_);
    }
  }

  // Stores the step counters back into device memory for the next launch
  // (thread 0, on success).
  __device__ void Finish(uint64_t* recv_step, uint64_t* send_step) {
    if (threadIdx.x == 0 && *failed_ == 0) {
      *recv_step = recv_step_;
      *send_step = send_step_;
    }
  }

  // One primitive call (prims_calls.cuh).
  __device__ bool Run(const S* src, S* dst, uint64_t n, unsigned flags) {
    const int slices = steps_.SlicesPerChunk();
    const int nsteps = steps_.slice_steps;
    for (int s = 0; s < slices; ++s) {
      const Range r = slices == 1 ? Range{0, n} : ChunkSlice(n, step_elems_, steps_, s);
      const uint64_t first = static_cast<uint64_t>(s * nsteps);
      const uint64_t rstep = recv_step_ + first;
      const uint64_t sstep = send_step_ + first;
      if (threadIdx.x == 0 && !WaitSlice(flags, rstep, sstep, nsteps)) *failed_ = 1;
      __syncthreads();
      if (*failed_ != 0) return false;
      if (r.count > 0) Move(flags, src, dst, r, rstep, sstep);
      __syncthreads();
      if (threadIdx.x == 0) Post(flags, rstep, sstep, nsteps, r.count * sizeof(S));
    }
    if (flags & kPrimRecv) recv_step_ += static_cast<uint64_t>(steps_.chunk_steps);
    if (flags & kPrimSend) send_step_ += static_cast<uint64_t>(steps_.chunk_steps);
    return true;
  }

 private:
  __device__ bool WaitSlice(unsigned flags, uint64_t rstep, uint64_t sstep, int nsteps) {
    const auto n = static_cast<uint64_t>(nsteps);
    if (flags & kPrimRecv) {
      for (int k = 0; k < Fan && k < peers_->nrecv; ++k) {
        if (!WaitAtLeast(l_, peers_->recv[k].tail, rstep + n, peers_->What(k, false))) return false;
      }
    }
    // A slot is free once the receiver released the step kFifoSteps back.
    if ((flags & kPrimSend) && sstep + n > kFifoSteps) {
      for (int k = 0; k < Fan && k < peers_->nsend; ++k) {
        if (!WaitAtLeast(l_, peers_->send[k].head, sstep + n - kFifoSteps, peers_->What(k, true))) return false;
      }
    }
    return true;
  }

  __device__ void Move(unsigned flags, const S* src, S* dst, Range r, uint64_t rstep, uint64_t sstep) {
    MoveArgsN<Fan + 1, Fan + 1> m{};
    int nin = 0;
    if (flags & kPrimSrc) m.src[nin++] = src + r.offset;
    if (flags & kPrimRecv) {
      for (int k = 0; k < Fan && k < peers_->nrecv; ++k) {
        m.src[nin++] = reinterpret_cast<const S*>(peers_->recv[k].fifo + SlotOffset(rstep, l_.buffer_bytes));
      }
    }
    int nout = 0;
    if (flags & kPrimDst) m.dst[nout++] = dst + r.offset;
    if (flags & kPrimSend) {
      for (int k = 0; k < Fan && k < peers_->nsend; ++k) {
        m.dst[nout++] = reinterpret_cast<S*>(peers_->send[k].fifo + SlotOffset(sstep, l_.buffer_bytes));
      }
    }
    m.count = r.count;
    m.divisor = (flags & kPrimPost) ? divisor_ : 0u;
    // Copy in place (recvCopySend of in-place data) never happens: dst is
    // always a user buffer and the inputs a FIFO or the send buffer.
    if (nin == 1 && nout == 1 && m.src[0] == m.dst[0]) return;
    ReduceCopy<D, RedFn>(m);
  }

  // `bytes`: the slice's data, contiguous from step sstep's slot over its
  // nsteps slots (a NET connection's proxy sends each slot's part).
  __device__ void Post(unsigned flags, uint64_t rstep, uint64_t sstep, int nsteps, uint64_t bytes) {
    const auto n = static_cast<uint64_t>(nsteps);
    if (flags & kPrimSend) {
      const uint64_t step_bytes = StepBytes(l_.buffer_bytes);
      for (int k = 0; k < Fan && k < peers_->nsend; ++k) {
        uint32_t* sizes = peers_->send[k].net_sizes;
        if (sizes == nullptr) continue;
        // Steps the alignment to a whole chunk skipped (the constructor)
        // carry nothing; their slots are free, as the slice's are (WaitSlice).
        for (uint64_t j = net_from_; j < sstep; ++j) sizes[j % kFifoSteps] = 0;
        for (uint64_t j = 0; j < n; ++j) {
          const uint64_t at = j * step_bytes;
          sizes[(sstep + j) % kFifoSteps] = static_cast<uint32_t>(bytes > at ? Min(bytes - at, step_bytes) : 0);
        }
      }
      net_from_ = sstep + n;
      FenceAcqRelSys();
      for (int k = 0; k < Fan && k < peers_->nsend; ++k) StoreReleaseSys(peers_->send[k].tail, sstep + n);
    }
    if (flags & kPrimRecv) {
      for (int k = 0; k < Fan && k < peers_->nrecv; ++k) StoreReleaseSys(peers_->recv[k].head, rstep + n);
    }
  }

  const DevLaunch& l_;
  const DevPeers<Fan>* peers_;
  int* failed_;
  ChunkSteps steps_;
  uint64_t step_elems_ = 0;
  uint32_t divisor_ = 0;
  uint64_t recv_step_ = 0;
  uint64_t send_step_ = 0;
  uint64_t net_from_ = 0;  // first step whose NET size is not written yet (thread 0's)
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_SIMPLE_CUH_
