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

template <DataType D, typename RedFn>
class PrimsLL : public PrimsOneStep<PrimsLL<D, RedFn>, D> {
  using Base = PrimsOneStep<PrimsLL<D, RedFn>, D>;

 public:
  using S = typename Base::S;
  __device__ PrimsLL(const DevLaunch& l, const WorkDesc& w, DevChannel* chan, int* failed) : Base(l, w, chan, failed) {}

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
    const auto* in =
        reinterpret_cast<const LLLine*>(this->chan_->recv.ll_fifo + SlotOffset(rstep, this->l_.ll_buffer_bytes));
    auto* out = reinterpret_cast<LLLine*>(this->chan_->send.ll_fifo + SlotOffset(sstep, this->l_.ll_buffer_bytes));
    const auto* src8 = reinterpret_cast<const uint8_t*>(src);
    auto* dst8 = reinterpret_cast<uint8_t*>(dst);
    const uint32_t rflag = LLFlag(rstep);
    const uint32_t sflag = LLFlag(sstep);
    for (uint64_t i = threadIdx.x; i < fill; i += blockDim.x) {
      if (i >= lines) {
        out[i].write(0, sflag);
        continue;
      }
      const uint64_t nb = Min(kLLWordBytes, bytes - i * kLLWordBytes);
      uint64_t v = 0;
      if ((flags & kPrimRecv) && !WaitLLLine(this->l_, in + i, rflag, WaitWhat{this->channel_, 0}, &v)) return false;
      if (flags & kPrimSrc) {
        const uint64_t mine = LoadChunk(src8 + i * kLLWordBytes, nb);
        v = (flags & kPrimRecv) ? CombineWord<D, RedFn>(mine, v) : mine;
      }
      if ((flags & kPrimPost) && this->divisor_ != 0) v = DivideWord<D>(v, this->divisor_);
      if (flags & kPrimSend) out[i].write(v, sflag);
      if (flags & kPrimDst) StoreChunk(dst8 + i * kLLWordBytes, v, nb);
    }
    return true;
  }
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_LL_CUH_
