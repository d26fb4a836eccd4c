// What the LL and LL128 primitives share (CRTP base of PrimsLL and
// PrimsLL128, `Derived`): a chunk is one FIFO step. Per call thread 0 waits
// for a free slot (the head the receiver releases; both protocols share the
// channel's step counters with Simple, dev_launch.h), the block moves the
// step's lines (Derived::Move, which polls each received line's flag: no
// tail counter, no fence), and after a block barrier thread 0 releases the
// received slot through head.
#ifndef GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/elem_ops.cuh"
#include "coll/device/prims_calls.cuh"
#include "coll/device/sync.cuh"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <typename Derived, DataType D>
class PrimsOneStep : public PrimsCalls<Derived, typename Elem<D>::Storage> {
 public:
  using S = typename Elem<D>::Storage;

  __device__ PrimsOneStep(const DevLaunch& l, const WorkDesc& w, DevChannel* chan, int* failed)
      : l_(l),
        chan_(chan),
        failed_(failed),
        channel_(w.channel),
        recv_step_(chan->recv_step),
        send_step_(chan->send_step) {
    divisor_ = w.op == RedOp::kAvg ? l.divisor : 0u;
  }

  // Stores the step counters back into the channel's device-memory state
  // for the next launch (thread 0, on success).
  __device__ void Finish(DevChannel* global) {
    if (threadIdx.x == 0 && *failed_ == 0) {
      global->recv_step = recv_step_;
      global->send_step = send_step_;
    }
  }

  // One primitive call (prims_calls.cuh): `n` elements, at most one step's
  // data (the planner's LL / LL128 chunk).
  __device__ bool Run(const S* src, S* dst, uint64_t n, unsigned flags) {
    const uint64_t rstep = recv_step_;
    const uint64_t sstep = send_step_;
    if (threadIdx.x == 0 && (flags & kPrimSend) && sstep + 1 > kFifoSteps &&
        !WaitAtLeast(l_, chan_->send.head, sstep + 1 - kFifoSteps, WaitWhat{channel_, 1})) {
      *failed_ = 1;
    }
    __syncthreads();
    if (*failed_ != 0) return false;
    if (!static_cast<Derived*>(this)->Move(flags, src, dst, n, rstep, sstep)) *failed_ = 1;
    __syncthreads();
    if (*failed_ != 0) return false;
    if (threadIdx.x == 0 && (flags & kPrimRecv)) StoreReleaseSys(chan_->recv.head, rstep + 1);
    if (flags & kPrimRecv) ++recv_step_;
    if (flags & kPrimSend) ++send_step_;
    return true;
  }

 protected:
  const DevLaunch& l_;
  DevChannel* chan_;
  int* failed_;
  uint32_t channel_;
  uint32_t divisor_ = 0;
  uint64_t recv_step_;
  uint64_t send_step_;
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_
