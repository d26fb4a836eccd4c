// What the LL and LL128 primitives share (CRTP base of PrimsLL and
// PrimsLL128, `Derived`): a chunk is one FIFO step. Per call thread 0 waits
// for a free slot on every sending connection (the head the receiver
// releases; both protocols share the channel's step counters with Simple,
// dev_launch.h), the block moves the step's lines (Derived::Move, which
// polls each received line's flag: no tail counter, no fence), and after a
// block barrier thread 0 releases the received slots through head, and, on
// a NET sending connection (LL only: Derived::kNetCapable), posts the step
// for the proxy (PostNet). `Fan`:
// the most connections each way (prims_peers.cuh).
#ifndef GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/elem_ops.cuh"
#include "coll/device/prims_calls.cuh"
#include "coll/device/prims_peers.cuh"
#include "coll/device/sync.cuh"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

template <typename Derived, DataType D, int Fan>
class PrimsOneStep : public PrimsCalls<Derived, typename Elem<D>::Storage> {
 public:
  using S = typename Elem<D>::Storage;

  __device__ PrimsOneStep(const DevLaunch& l, const WorkDesc& w, const DevPeers<Fan>* peers, int* failed)
      : l_(l), peers_(peers), failed_(failed), recv_step_(peers->recv_step), send_step_(peers->send_step) {
    divisor_ = w.op == RedOp::kAvg ? l.divisor : 0u;
  }

  // Stores the step counters back into device memory for the next launch
  // (thread 0, on success).
  __device__ void Finish(uint64_t* recv_step, uint64_t* send_step) {
    if (threadIdx.x == 0 && *failed_ == 0) {
      *recv_step = recv_step_;
      *send_step = send_step_;
    }
  }

  // One primitive call (prims_calls.cuh): `n` elements, at most one step's
  // data (the planner's LL / LL128 chunk).
  __device__ bool Run(const S* src, S* dst, uint64_t n, unsigned flags) {
    const uint64_t rstep = recv_step_;
    const uint64_t sstep = send_step_;
    if (threadIdx.x == 0 && (flags & kPrimSend) && sstep + 1 > kFifoSteps) {
      for (int k = 0; k < Fan && k < peers_->nsend; ++k) {
        if (!WaitAtLeast(l_, peers_->send[k].head, sstep + 1 - kFifoSteps, peers_->What(k, true))) {
          *failed_ = 1;
          break;
        }
      }
    }
    __syncthreads();
    if (*failed_ != 0) return false;
    if (!static_cast<Derived*>(this)->Move(flags, src, dst, n, rstep, sstep)) *failed_ = 1;
    __syncthreads();
    if (*failed_ != 0) return false;
    if (threadIdx.x == 0 && (flags & kPrimRecv)) {
      for (int k = 0; k < Fan && k < peers_->nrecv; ++k) StoreReleaseSys(peers_->recv[k].head, rstep + 1);
    }
    if constexpr (Derived::kNetCapable) {
      if (threadIdx.x == 0 && (flags & kPrimSend)) PostNet(static_cast<Derived*>(this)->WireBytes(n, sstep), sstep);
    }
    if (flags & kPrimRecv) ++recv_step_;
    if (flags & kPrimSend) ++send_step_;
    return true;
  }

 protected:
  // A NET sending connection's step (net_sizes set): its wire bytes, then,
  // after a system fence (every thread's lines are before it: the block
  // barrier), tail, for the proxy that sends it (dev_launch.h).
  __device__ void PostNet(uint64_t wire_bytes, uint64_t sstep) {
    bool fenced = false;
    for (int k = 0; k < Fan && k < peers_->nsend; ++k) {
      uint32_t* sizes = peers_->send[k].net_sizes;
      if (sizes == nullptr) continue;
      sizes[sstep % kFifoSteps] = static_cast<uint32_t>(wire_bytes) | kNetStepLL;
      if (!fenced) FenceAcqRelSys();
      fenced = true;
      StoreReleaseSys(peers_->send[k].tail, sstep + 1);
    }
  }

  const DevLaunch& l_;
  const DevPeers<Fan>* peers_;
  int* failed_;
  uint32_t divisor_ = 0;
  uint64_t recv_step_;
  uint64_t send_step_;
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_ONE_STEP_CUH_
