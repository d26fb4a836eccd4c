// Device primitives of the LL protocol (NCCL prims_ll.h; wire format in
// coll/wire_format.h): one block drives one channel's ring connection pair,
// with the same calls as PrimsSimple so the ring algorithms take either. A
// chunk is one FIFO step (prims_one_step.cuh: thread 0 waits for a free
// slot through the shared head counter first), and every thread takes lines
// tid, tid + blockDim, ...: it polls the received line until both its flags
// are the step's (no tail counter, no fence: the flag travels with the data
// in one 16-byte store), combines it with the source's 8 bytes, and stores
// the result to the next rank's FIFO and/or the destination. A send at a step
// where LLNeedsClean holds rewrites the whole slot, so no stale flag can
// match after the 32-bit flag wraps.
#ifndef GPURUN_COLL_DEVICE_PRIMS_LL_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_LL_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/ll_words.cuh"
#include "coll/device/prims_one_step.cuh"
#include "coll/device/sync.cuh"
#include "coll/int_math.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <DataType D, typename RedFn, int Fan = 1>
class PrimsLL : public PrimsOneStep<PrimsLL<D, RedFn, Fan>, D, Fan> {
  using Base = PrimsOneStep<PrimsLL<D, RedFn, Fan>, D, Fan>;

 public:
  using S = typename Base::S;
  __device__ PrimsLL(const DevLaunch& l, const WorkDesc& w, const DevPeers<Fan>* peers, int* failed)
      : Base(l, w, peers, failed) {}

  // LL runs on NET connections (prims_one_step.cuh PostNet): a step's wire
  // bytes are the lines Move writes, the whole slot at a clean-up step.
  static constexpr bool kNetCapable = true;
  __device__ uint64_t WireBytes(uint64_t n, uint64_t sstep) const {
    const uint64_t lines =
        LLNeedsClean(sstep) ? StepLines(Protocol::kLL, this->l_.ll_buffer_bytes) : DivUp(n * sizeof(S), kLLWordBytes);
    return lines * sizeof(LLLine);
  }

  // Called by Base::Run; false when a wait gave up (recorded). Line by
  // line: moving 8 lines per thread per round (source loads and
  // first polls of all 8 issued before any wait) was measured slower on
  // 2 x H200 (run 11 of 2026-11-30: allgather 8 B 7.7 against 5.7 us, one
  // channel 4.3 against 5.5 GB/s busbw; it also had to be out of line to
  // keep the kernels' size down): the wait, not the load latency, bounds a
  // channel.
  __device__ bool Move(unsigned flags, const S* src, S* dst, uint64_t n, uint64_t rstep, uint64_t sstep) {
    const uint64_t bytes = n * sizeof(S);
    const uint64_t lines = DivUp(bytes, kLLWordBytes);
    const uint64_t fill =
        (flags & kPrimSend) && LLNeedsClean(sstep) ? StepLines(Protocol::kLL, this->l_.ll_buffer_bytes) : lines;
    const DevPeers<Fan>& p = *this->peers_;
    const uint64_t rslot = SlotOffset(rstep, this->l_.ll_buffer_bytes);
    const uint64_t sslot = SlotOffset(sstep, this->l_.ll_buffer_bytes);
    const auto* src8 = reinterpret_cast<const uint8_t*>(src);
    auto* dst8 = reinterpret_cast<uint8_t*>(dst);
    const uint32_t rflag = LLFlag(rstep);
    const uint32_t sflag = LLFlag(sstep);
    const int nrecv = (flags & kPrimRecv) ? p.nrecv : 0;
    const int nsend = (flags & kPrimSend) ? p.nsend : 0;
    for (uint64_t i = threadIdx.x; i < fill; i += blockDim.x) {
      if (i >= lines) {
        for (int k = 0; k < Fan && k < nsend; ++k)
          reinterpret_cast<LLLine*>(p.send[k].ll_fifo + sslot)[i].write(0, sflag);
        continue;
      }
      const uint64_t nb = Min(kLLWordBytes, bytes - i * kLLWordBytes);
      uint64_t v = 0;
      if (flags & kPrimSrc) v = LoadChunk(src8 + i * kLLWordBytes, nb);
      for (int k = 0; k < Fan && k < nrecv; ++k) {
        uint64_t got = 0;
        const auto* in = reinterpret_cast<const LLLine*>(p.recv[k].ll_fifo + rslot);
        if (!WaitLLLine(this->l_, in + i, rflag, p.What(k, false), &got)) return false;
        v = (k > 0 || (flags & kPrimSrc)) ? CombineWord<D, RedFn>(v, got) : got;
      }
      if ((flags & kPrimPost) && this->divisor_ != 0) v = DivideWord<D>(v, this->divisor_);
      for (int k = 0; k < Fan && k < nsend; ++k)
        reinterpret_cast<LLLine*>(p.send[k].ll_fifo + sslot)[i].write(v, sflag);
      if (flags & kPrimDst) StoreChunk(dst8 + i * kLLWordBytes, v, nb);
    }
    return true;
  }
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_LL_CUH_
