// The one-shot allreduce kernel (oneshot_launch.h), for one (element type,
// operator) pair; ring_kernels.cu.in instantiates it per type. Each thread
// owns lines i = global thread index + k * total threads: it pushes its own
// 8 bytes of line i to every peer, then reduces line i of every rank in rank
// order, waiting for each peer's line with the bounded poll of sync.cuh.
#ifndef GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_
#define GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_

#include "coll/device/elem_ops.cuh"
#include "coll/device/oneshot_launch.h"
#include "coll/device/sync.cuh"
#include "coll/wire_format.h"

namespace gpurun::coll::dev {

// 8 data bytes at `p`, of which `n` (1..8) are valid (the rest read as 0),
// by the widest loads `p`'s alignment allows.
__device__ __forceinline__ uint64_t LoadChunk(const uint8_t* p, uint64_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && a % 8 == 0) return *reinterpret_cast<const uint64_t*>(p);
  if (n == 8 && a % 4 == 0) {
    const auto* w = reinterpret_cast<const uint32_t*>(p);
    return static_cast<uint64_t>(w[0]) | static_cast<uint64_t>(w[1]) << 32;
  }
  uint64_t v = 0;
  for (uint64_t b = 0; b < n; ++b) v |= static_cast<uint64_t>(p[b]) << (8 * b);
  return v;
}

__device__ __forceinline__ void StoreChunk(uint8_t* p, uint64_t v, uint64_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (n == 8 && a % 8 == 0) {
    *reinterpret_cast<uint64_t*>(p) = v;
  } else if (n == 8 && a % 4 == 0) {
    auto* w = reinterpret_cast<uint32_t*>(p);
    w[0] = static_cast<uint32_t>(v);
    w[1] = static_cast<uint32_t>(v >> 32);
  } else {
    for (uint64_t b = 0; b < n; ++b) p[b] = static_cast<uint8_t>(v >> (8 * b));
  }
}

// acc = acc op v, element by element, over the 8 bytes of a line.
template <DataType D, typename Op>
__device__ __forceinline__ uint64_t CombineChunk(uint64_t acc, uint64_t v) {
  using S = typename Elem<D>::Storage;
  constexpr int kPer = 8 / sizeof(S);
  union U {
    uint64_t u;
    S e[kPer];
  } a{acc}, b{v};
#pragma unroll
  for (int k = 0; k < kPer; ++k) a.e[k] = Combine<D, Op>(a.e[k], b.e[k]);
  return a.u;
}

template <DataType D>
__device__ __forceinline__ uint64_t DivideChunk(uint64_t acc, uint32_t divisor) {
  using S = typename Elem<D>::Storage;
  constexpr int kPer = 8 / sizeof(S);
  union U {
    uint64_t u;
    S e[kPer];
  } a{acc};
#pragma unroll
  for (int k = 0; k < kPer; ++k) a.e[k] = Divide<D>(a.e[k], divisor);
  return a.u;
}

// Polls `line` until it carries `flag`; false (error recorded) on abort or
// timeout. `from`: the rank that writes it.
static __device__ __noinline__ bool WaitLine(const DevOneShotLaunch& l, const LLLine* line, uint32_t flag, int from,
                                             uint64_t* data) {
  uint64_t deadline = 0;
  for (uint32_t polls = 1;; ++polls) {
    if (line->read(flag, data)) return true;
    if (polls % kPollCheck != 0) continue;
    const WaitWhat what{kDirectWaitChannel, 0, static_cast<uint32_t>(from)};
    if (LoadVolatile(l.abort) != 0) {
      RecordError(l, static_cast<uint32_t>(DevErrorCode::kAborted), what, flag, line->word[1]);
      return false;
    }
    if (LoadVolatile(&l.error->code) != 0) return false;
    const uint64_t now = GlobalTimerNs();
    if (deadline == 0) {
      deadline = l.timeout_ns == 0 ? ~0ull : now + l.timeout_ns;
    } else if (now > deadline) {
      RecordError(l, static_cast<uint32_t>(DevErrorCode::kTimeout), what, flag, line->word[1]);
      return false;
    }
  }
}

template <DataType D, typename Op>
__global__ void __launch_bounds__(kOneShotThreads) OneShotKernel(const __grid_constant__ DevOneShotLaunch l) {
  __shared__ uint64_t call_shared;
  if (threadIdx.x == 0) call_shared = *reinterpret_cast<volatile uint64_t*>(l.calls);
  __syncthreads();
  const uint64_t call = call_shared;
  const uint32_t flag = OneShotFlag(call);
  const uint64_t parity_base = static_cast<uint64_t>(OneShotParity(call)) * static_cast<uint64_t>(l.nranks);
  const uint64_t lines = (l.bytes + kOneShotLineData - 1) / kOneShotLineData;
  const uint64_t first = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  const auto* send = static_cast<const uint8_t*>(l.send);
  auto* recv = static_cast<uint8_t*>(l.recv);
  const uint64_t my_slot = (parity_base + static_cast<uint64_t>(l.rank)) * l.slot_bytes;

  // Push: this rank's line i into its slot of every peer.
  for (uint64_t i = first; i < lines; i += stride) {
    const uint64_t n = min(kOneShotLineData, l.bytes - i * kOneShotLineData);
    const uint64_t v = LoadChunk(send + i * kOneShotLineData, n);
    for (int r = 0; r < l.nranks; ++r) {
      if (r == l.rank) continue;
      reinterpret_cast<LLLine*>(l.peer_scratch[r] + my_slot)[i].write(v, flag);
    }
  }
  // Reduce: line i of every rank, in rank order.
  bool ok = true;
  for (uint64_t i = first; ok && i < lines; i += stride) {
    const uint64_t n = min(kOneShotLineData, l.bytes - i * kOneShotLineData);
    uint64_t acc = 0;
    for (int r = 0; r < l.nranks; ++r) {
      uint64_t v;
      if (r == l.rank) {
        v = LoadChunk(send + i * kOneShotLineData, n);
      } else {
        const auto* slot =
            reinterpret_cast<const LLLine*>(l.scratch + (parity_base + static_cast<uint64_t>(r)) * l.slot_bytes);
        if (!WaitLine(l, slot + i, flag, r, &v)) {
          ok = false;
          break;
        }
      }
      acc = r == 0 ? v : CombineChunk<D, Op>(acc, v);
    }
    if (!ok) break;
    if (l.divisor != 0) acc = DivideChunk<D>(acc, l.divisor);
    StoreChunk(recv + i * kOneShotLineData, acc, n);
  }
  // The last block to finish advances the call count for the next launch.
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(l.blocks_done, 1u) == gridDim.x - 1) {
      *l.blocks_done = 0;
      *l.calls = call + 1;
    }
  }
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_ONESHOT_KERNEL_CUH_
