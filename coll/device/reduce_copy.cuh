// The block-wide data mover of the device primitives: up to NS inputs
// combined elementwise in order (or one copied), optionally divided (avg's
// final step), stored to up to ND outputs (ring primitives: 2 and 2; tree
// primitives: 3 and 3, a rank's own data and two children's). Every thread of the block takes part. When all
// pointers are 16-byte aligned it moves 16-byte packs, kUnroll packs in flight
// per thread so loads from peer-written FIFOs and stores over NVLink overlap;
// the rest (and unaligned user buffers) go element by element. Loads bypass
// L1 (ld.global.cg): a FIFO slot is rewritten by a peer GPU between uses, and
// L1 is not coherent with those writes.
#ifndef GPURUN_COLL_DEVICE_REDUCE_COPY_CUH_
#define GPURUN_COLL_DEVICE_REDUCE_COPY_CUH_

#include <cstdint>

#include "coll/device/elem_ops.cuh"

namespace gpurun::coll::dev {

// 16-byte packs each thread has in flight per source (GPURUN_DEVICE_UNROLL,
// a CMake setting, so variants can be measured without editing code).
#ifndef GPURUN_DEVICE_UNROLL
#define GPURUN_DEVICE_UNROLL 4
#endif
inline constexpr int kUnroll = GPURUN_DEVICE_UNROLL;

template <int NS, int ND>
struct MoveArgsN {
  const void* src[NS];  // src[0] always set; a null entry is no input
  void* dst[ND];        // dst[0] always set; a null entry is no output
  uint64_t count;       // elements
  uint32_t divisor;     // 0: no division
};
using MoveArgs = MoveArgsN<2, 2>;

__device__ __forceinline__ bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <DataType D, typename Op, int NS, int ND>
__device__ __forceinline__ void MovePacks(const MoveArgsN<NS, ND>& m, uint64_t npacks) {
  const uint64_t nt = blockDim.x;
  for (uint64_t base = threadIdx.x; base < npacks; base += nt * kUnroll) {
    uint4 a[NS][kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint64_t i = base + u * nt;
      if (i < npacks) {
#pragma unroll
        for (int j = 0; j < NS; ++j) {
          if (m.src[j] != nullptr) a[j][u] = __ldcg(static_cast<const uint4*>(m.src[j]) + i);
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint64_t i = base + u * nt;
      if (i >= npacks) break;
      uint4 v = a[0][u];
#pragma unroll
      for (int j = 1; j < NS; ++j) {
        if (m.src[j] != nullptr) v = CombineWord<D, Op>(v, a[j][u]);
      }
      if (m.divisor != 0) v = DivideWord<D>(v, m.divisor);
#pragma unroll
      for (int j = 0; j < ND; ++j) {
        if (m.dst[j] != nullptr) static_cast<uint4*>(m.dst[j])[i] = v;
      }
    }
  }
}

// An element at an address not aligned to its size (user buffers at any byte
// offset are allowed, as on the host): moved byte by byte.
template <typename S>
__device__ __forceinline__ S LoadElem(const S* p, bool aligned) {
  if (aligned) return __ldcg(p);
  S v;
  auto* d = reinterpret_cast<uint8_t*>(&v);
  const auto* s = reinterpret_cast<const uint8_t*>(p);
#pragma unroll
  for (unsigned k = 0; k < sizeof(S); ++k) d[k] = __ldcg(s + k);
  return v;
}

template <typename S>
__device__ __forceinline__ void StoreElem(S* p, S v, bool aligned) {
  if (aligned) {
    *p = v;
    return;
  }
  auto* d = reinterpret_cast<uint8_t*>(p);
  const auto* s = reinterpret_cast<const uint8_t*>(&v);
#pragma unroll
  for (unsigned k = 0; k < sizeof(S); ++k) d[k] = s[k];
}

__device__ __forceinline__ bool AlignedTo(const void* p, uintptr_t a) {
  return (reinterpret_cast<uintptr_t>(p) & (a - 1)) == 0;
}

template <DataType D, typename Op, int NS, int ND>
__device__ __forceinline__ void MoveElems(const MoveArgsN<NS, ND>& m, uint64_t begin) {
  using S = typename Elem<D>::Storage;
  bool a = true;
#pragma unroll
  for (int j = 0; j < NS; ++j) a = a && AlignedTo(m.src[j], sizeof(S));
#pragma unroll
  for (int j = 0; j < ND; ++j) a = a && AlignedTo(m.dst[j], sizeof(S));
  for (uint64_t i = begin + threadIdx.x; i < m.count; i += blockDim.x) {
    S v = LoadElem(static_cast<const S*>(m.src[0]) + i, a);
#pragma unroll
    for (int j = 1; j < NS; ++j) {
      if (m.src[j] != nullptr) v = Combine<D, Op>(v, LoadElem(static_cast<const S*>(m.src[j]) + i, a));
    }
    if (m.divisor != 0) v = Divide<D>(v, m.divisor);
#pragma unroll
    for (int j = 0; j < ND; ++j) {
      if (m.dst[j] != nullptr) StoreElem(static_cast<S*>(m.dst[j]) + i, v, a);
    }
  }
}

// Moves m.count elements; call from every thread of the block.
template <DataType D, typename Op, int NS, int ND>
__device__ __forceinline__ void ReduceCopy(const MoveArgsN<NS, ND>& m) {
  using S = typename Elem<D>::Storage;
  bool aligned = true;
#pragma unroll
  for (int j = 0; j < NS; ++j) aligned = aligned && Aligned16(m.src[j]);
#pragma unroll
  for (int j = 0; j < ND; ++j) aligned = aligned && Aligned16(m.dst[j]);
  uint64_t done = 0;
  if (aligned) {
    const uint64_t npacks = m.count * sizeof(S) / 16;
    MovePacks<D, Op>(m, npacks);
    done = npacks * 16 / sizeof(S);
  }
  MoveElems<D, Op>(m, done);
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_REDUCE_COPY_CUH_
