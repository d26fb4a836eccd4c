// The stream-ordered point-to-point kernel (p2p_kernel.h, format in
// p2p_launch.h): each block drives channels j, j + blocks, ... (ascending)
// of one operation, a send or a receive.
// Per step, thread 0 waits (a free slot, or the sender's tail), the block
// copies, and thread 0 publishes after the block barrier: a system-scope
// fence, then the tail (sender) or the released head (receiver), as the
// Simple primitives do (prims_simple.cuh).
#include <cuda_runtime.h>

#include "coll/device/p2p_kernel.h"
#include "coll/device/reduce_copy.cuh"
#include "coll/device/sync.cuh"

namespace gpurun::coll::dev {
namespace {

// Copies `n` bytes with the widest element the two addresses allow: 16-byte
// packs when both are 16-byte aligned, else 4-byte words when both are
// 4-byte aligned, else bytes.
__device__ __forceinline__ void CopyBytes(const uint8_t* src, uint8_t* dst, uint64_t n) {
  if (AlignedTo(src, 4) && AlignedTo(dst, 4) && !(Aligned16(src) && Aligned16(dst))) {
    const uint64_t words = n / 4;
    ReduceCopy<DataType::kUint32, OpSum>(MoveArgs{src, nullptr, dst, nullptr, words, 0});
    const uint64_t done = words * 4;
    if (done == n) return;
    src += done;
    dst += done;
    n -= done;
  }
  ReduceCopy<DataType::kUint8, OpSum>(MoveArgs{src, nullptr, dst, nullptr, n, 0});
}

// A message error (truncation, tag mismatch) for the host: first one wins.
__device__ void RecordMessageError(DevError* e, uint32_t code, WaitWhat what, uint64_t a, uint64_t b) {
  if (atomicCAS(&e->code, 0u, code) != 0u) return;
  e->channel = what.channel;
  e->sending = 0;
  e->peer = what.peer;
  e->step = a;
  e->value = b;
  __threadfence_system();
}

template <typename L>
__device__ void SendChannel(const L& l, const DevP2pOp& op, int c, DevP2pSendChan& ch, int* failed) {
  const P2pPart part = P2pChannelPart(op.bytes, op.channels, c);
  const uint64_t steps = P2pPartSteps(part.bytes, l.buffer_bytes);
  const uint64_t step_bytes = StepBytes(l.buffer_bytes);
  const auto* src = static_cast<const uint8_t*>(op.buf) + part.offset;
  for (uint64_t k = 0; k < steps; ++k) {
    const uint64_t s = ch.step + k;
    if (threadIdx.x == 0 && s + 1 > kFifoSteps &&
        !WaitAtLeast(l, ch.head, s + 1 - kFifoSteps,
                     WaitWhat{static_cast<uint32_t>(c), 1, static_cast<uint32_t>(op.peer)})) {
      *failed = 1;
    }
    __syncthreads();
    if (*failed != 0) return;
    const uint64_t at = k * step_bytes;
    const uint64_t n = part.bytes > at ? Min(step_bytes, part.bytes - at) : 0;
    if (n > 0) CopyBytes(src + at, ch.fifo + SlotOffset(s, l.buffer_bytes), n);
    if (k == 0 && threadIdx.x == 0) {
      DevP2pHeader* h = &ch.headers[s % kFifoSteps];
      h->bytes = op.bytes;
      h->tag = op.tag;
    }
    if (threadIdx.x == 0 && ch.net_sizes != nullptr) ch.net_sizes[s % kFifoSteps] = static_cast<uint32_t>(n);
    __syncthreads();
    if (threadIdx.x == 0) {
      FenceAcqRelSys();
      StoreReleaseSys(ch.tail, s + 1);
    }
  }
  if (threadIdx.x == 0) ch.step += steps;
}

struct RecvPlan {
  uint64_t bytes;  // the message's size
  int32_t tag;
  bool discard;  // tag mismatch: consume without writing
};

template <typename L>
__device__ void RecvChannel(const L& l, const DevP2pOp& op, int c, DevP2pRecvChan& ch, RecvPlan* plan, int* failed) {
  const WaitWhat what{static_cast<uint32_t>(c), 0, static_cast<uint32_t>(op.peer)};
  if (threadIdx.x == 0) {
    if (!WaitAtLeast(l, ch.tail, ch.step + 1, what)) {
      *failed = 1;
    } else {
      const DevP2pHeader* h = &ch.headers[ch.step % kFifoSteps];
      plan->bytes = __ldcg(&h->bytes);
      plan->tag = __ldcg(&h->tag);
      plan->discard = op.tag != kDevAnyTag && plan->tag != op.tag;
      // A receive with a status learns of it there; one without, from the
      // host's next call.
      if (op.result == nullptr && plan->discard) {
        RecordMessageError(l.message_error, kDevErrorTagMismatch, what, static_cast<uint32_t>(op.tag),
                           static_cast<uint32_t>(plan->tag));
      } else if (op.result == nullptr && plan->bytes > op.bytes) {
        RecordMessageError(l.message_error, kDevErrorTruncated, what, plan->bytes, op.bytes);
      }
    }
  }
  __syncthreads();
  if (*failed != 0) return;
  const P2pPart part = P2pChannelPart(plan->bytes, op.channels, c);
  const uint64_t steps = P2pPartSteps(part.bytes, l.buffer_bytes);
  const uint64_t step_bytes = StepBytes(l.buffer_bytes);
  auto* dst = static_cast<uint8_t*>(op.buf);
  for (uint64_t k = 0; k < steps; ++k) {
    const uint64_t s = ch.step + k;
    if (k > 0) {
      if (threadIdx.x == 0 && !WaitAtLeast(l, ch.tail, s + 1, what)) *failed = 1;
      __syncthreads();
      if (*failed != 0) return;
    }
    // The step's bytes of the message, cut to the receive's room.
    const uint64_t at = part.offset + k * step_bytes;
    const uint64_t end = Min(at + Min(step_bytes, part.bytes - Min(part.bytes, k * step_bytes)), op.bytes);
    if (!plan->discard && end > at) CopyBytes(ch.fifo + SlotOffset(s, l.buffer_bytes), dst + at, end - at);
    __syncthreads();
    if (threadIdx.x == 0) StoreReleaseSys(ch.head, s + 1);
  }
  if (threadIdx.x == 0) ch.step += steps;
}

// One channel of `op`; false when a wait failed.
template <typename L>
__device__ bool RunChannel(const L& l, const DevP2pOp& op, int c, RecvPlan* plan, int* failed) {
  __shared__ union {
    DevP2pSendChan send;
    DevP2pRecvChan recv;
  } ch;
  auto* send_chans = static_cast<DevP2pSendChan*>(op.chans);
  auto* recv_chans = static_cast<DevP2pRecvChan*>(op.chans);
  if (threadIdx.x == 0) {
    if (op.sending != 0) {
      ch.send = send_chans[c];
    } else {
      ch.recv = recv_chans[c];
    }
  }
  __syncthreads();
  if (op.sending != 0) {
    SendChannel(l, op, c, ch.send, failed);
    if (threadIdx.x == 0 && *failed == 0) send_chans[c].step = ch.send.step;
  } else {
    RecvChannel(l, op, c, ch.recv, plan, failed);
    if (threadIdx.x == 0 && *failed == 0) {
      recv_chans[c].step = ch.recv.step;
      if (c == 0 && op.result != nullptr) {
        DevP2pResult r;
        r.bytes = plan->discard ? 0 : Min(plan->bytes, op.bytes);
        r.tag = plan->tag;
        r.error = plan->discard ? kDevErrorTagMismatch : (plan->bytes > op.bytes ? kDevErrorTruncated : 0u);
        *op.result = r;
        __threadfence_system();
      }
    }
  }
  __syncthreads();
  return *failed == 0;
}

template <int N>
__global__ void __launch_bounds__(kP2pThreads) P2pKernel(const __grid_constant__ DevP2pLaunchN<N> l) {
  __shared__ int failed;
  __shared__ RecvPlan plan;
  const int b = static_cast<int>(blockIdx.x);
  int k = 0;
  while (k + 1 < l.nops && b >= l.ops[k + 1].first_block) ++k;
  const DevP2pOp& op = l.ops[k];
  if (threadIdx.x == 0) failed = 0;
  __syncthreads();
  for (int c = b - op.first_block; c < op.channels; c += op.blocks) {
    if (!RunChannel(l, op, c, &plan, &failed)) return;
  }
}

template <int N>
int Launch(const DevP2pLaunchN<N>& launch, void* stream) {
  void* args[] = {const_cast<DevP2pLaunchN<N>*>(&launch)};
  const cudaError_t err =
      cudaLaunchKernel(reinterpret_cast<const void*>(&P2pKernel<N>), dim3(static_cast<unsigned>(launch.nblocks)),
                       dim3(kP2pThreads), args, 0, static_cast<cudaStream_t>(stream));
  return static_cast<int>(err);
}

}  // namespace

int LaunchP2pKernel(const DevP2pLaunch& launch, void* stream) { return Launch(launch, stream); }

int LaunchP2pKernel(const DevP2pGroupLaunch& launch, void* stream) { return Launch(launch, stream); }

}  // namespace gpurun::coll::dev
