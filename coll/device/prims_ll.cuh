// Device primitives of the LL protocol (NCCL prims_ll.h; wire format in
// coll/wire_format.h): one block drives one channel's ring connection pair,
// with the same calls as PrimsSimple so the ring algorithms take either. A
// chunk is one FIFO step (chunking.h ChunkStepsFor). Per call, thread 0 waits
// for a free slot (the shared head counter), then every thread takes lines
// tid, tid + blockDim, ...: it polls the received line until both its flags
// are the step's (no tail counter, no fence: the flag travels with the data
// in one 16-byte store), combines it with the source's 8 bytes, and stores
// the result to the next rank's FIFO and/or the destination. After a block
// barrier thread 0 releases the received slot through head. A send at a step
// where LLNeedsClean holds rewrites the whole slot, so no stale flag can
// match after the 32-bit flag wraps.
#ifndef GPURUN_COLL_DEVICE_PRIMS_LL_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_LL_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/ll_words.cuh"
#include "coll/device/sync.cuh"
#include "coll/int_math.h"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <DataType D, typename RedFn>
class PrimsLL {
 public:
  using S = typename Elem<D>::Storage;
  enum : unsigned { kRecv = 1, kSend = 2, kSrc = 4, kDst = 8, kPost = 16 };

  __device__ PrimsLL(const DevLaunch& l, const WorkDesc& w, DevChannel* chan, int* failed)
      : l_(l),
        chan_(chan),
        failed_(failed),
        channel_(w.channel),
        recv_step_(chan->recv_step),
        send_step_(chan->send_step) {
    divisor_ = w.op == RedOp::kAvg ? l.divisor : 0u;
  }

  __device__ bool Send(const S* src, uint64_t n) { return Run(src, nullptr, n, kSrc | kSend); }
  __device__ bool Recv(S* dst, uint64_t n) { return Run(nullptr, dst, n, kRecv | kDst); }
  __device__ bool RecvReduceSend(const S* src, uint64_t n) { return Run(src, nullptr, n, kRecv | kSrc | kSend); }
  __device__ bool RecvReduceCopySend(const S* src, S* dst, uint64_t n, bool post) {
    return Run(src, dst, n, kRecv | kSrc | kDst | kSend | (post ? kPost : 0u));
  }
  __device__ bool RecvCopySend(S* dst, uint64_t n) { return Run(nullptr, dst, n, kRecv | kDst | kSend); }
  __device__ bool RecvReduceCopy(const S* src, S* dst, uint64_t n, bool post) {
    return Run(src, dst, n, kRecv | kSrc | kDst | (post ? kPost : 0u));
  }
  __device__ bool CopySend(const S* src, S* dst, uint64_t n) { return Run(src, dst, n, kSrc | kDst | kSend); }

  __device__ void Finish(DevChannel* global) {
    if (threadIdx.x == 0 && *failed_ == 0) {
      global->recv_step = recv_step_;
      global->send_step = send_step_;
    }
  }

 private:
  // `n` elements, at most one step's data (the planner's LL chunk).
  __device__ bool Run(const S* src, S* dst, uint64_t n, unsigned flags) {
    const uint64_t rstep = recv_step_;
    const uint64_t sstep = send_step_;
    if (threadIdx.x == 0 && (flags & kSend) && sstep + 1 > kFifoSteps &&
        !WaitAtLeast(l_, chan_->send.head, sstep + 1 - kFifoSteps, WaitWhat{channel_, 1})) {
      *failed_ = 1;
    }
    __syncthreads();
    if (*failed_ != 0) return false;
    Move(flags, src, dst, n, rstep, sstep);
    __syncthreads();
    if (*failed_ != 0) return false;
    if (threadIdx.x == 0 && (flags & kRecv)) StoreReleaseSys(chan_->recv.head, rstep + 1);
    if (flags & kRecv) ++recv_step_;
    if (flags & kSend) ++send_step_;
    return true;
  }

  // Line by line. Moving 8 lines per thread per round (source loads and
  // first polls of all 8 issued before any wait) was measured slower on
  // 2 x H200 (run 11 of 2026-11-30: allgather 8 B 7.7 against 5.7 us, one
  // channel 4.3 against 5.5 GB/s busbw; it also had to be out of line to
  // keep the kernels' size down): the wait, not the load latency, bounds a
  // channel.
  __device__ void Move(unsigned flags, const S* src, S* dst, uint64_t n, uint64_t rstep, uint64_t sstep) {
    const uint64_t bytes = n * sizeof(S);
    const uint64_t lines = DivUp(bytes, kLLWordBytes);
    const uint64_t fill = (flags & kSend) && LLNeedsClean(sstep) ? StepLines(Protocol::kLL, l_.ll_buffer_bytes) : lines;
    const auto* in = reinterpret_cast<const LLLine*>(chan_->recv.ll_fifo + SlotOffset(rstep, l_.ll_buffer_bytes));
    auto* out = reinterpret_cast<LLLine*>(chan_->send.ll_fifo + SlotOffset(sstep, l_.ll_buffer_bytes));
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
      if ((flags & kRecv) && !WaitLLLine(l_, in + i, rflag, WaitWhat{channel_, 0}, &v)) {
        *failed_ = 1;
        return;
      }
      if (flags & kSrc) {
        const uint64_t mine = LoadChunk(src8 + i * kLLWordBytes, nb);
        v = (flags & kRecv) ? CombineChunk<D, RedFn>(mine, v) : mine;
      }
      if ((flags & kPost) && divisor_ != 0) v = DivideChunk<D>(v, divisor_);
      if (flags & kSend) out[i].write(v, sflag);
      if (flags & kDst) StoreChunk(dst8 + i * kLLWordBytes, v, nb);
    }
  }

  const DevLaunch& l_;
  DevChannel* chan_;
  int* failed_;
  uint32_t channel_;
  uint32_t divisor_ = 0;
  uint64_t recv_step_;
  uint64_t send_step_;
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_LL_CUH_
