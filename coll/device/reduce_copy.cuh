// The block-wide data mover of the device primitives: up to two inputs
// combined elementwise (or one copied), optionally divided (avg's final step),
// stored to up to two outputs. Every thread of the block takes part. When all
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

struct MoveArgs {
  const void* src0;  // always set
  const void* src1;  // null: copy src0
  void* dst0;        // always set
  void* dst1;        // null: one output
  uint64_t count;    // elements
  uint32_t divisor;  // 0: no division
};

__device__ __forceinline__ bool Aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <DataType D, typename Op>
__device__ __forceinline__ void MovePacks(const MoveArgs& m, uint64_t npacks) {
  const uint4* s0 = static_cast<const uint4*>(m.src0);
  const uint4* s1 = static_cast<const uint4*>(m.src1);
  uint4* d0 = static_cast<uint4*>(m.dst0);
  uint4* d1 = static_cast<uint4*>(m.dst1);
  const uint64_t nt = blockDim.x;
  for (uint64_t base = threadIdx.x; base < npacks; base += nt * kUnroll) {
    uint4 a[kUnroll];
    uint4 b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint64_t i = base + u * nt;
      if (i < npacks) {
        a[u] = __ldcg(s0 + i);
        if (s1 != nullptr) b[u] = __ldcg(s1 + i);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const uint64_t i = base + u * nt;
      if (i >= npacks) break;
      uint4 v = s1 != nullptr ? CombineWord<D, Op>(a[u], b[u]) : a[u];
      if (m.divisor != 0) v = DivideWord<D>(v, m.divisor);
      d0[i] = v;
      if (d1 != nullptr) d1[i] = v;
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

template <DataType D, typename Op>
__device__ __forceinline__ void MoveElems(const MoveArgs& m, uint64_t begin) {
  using S = typename Elem<D>::Storage;
  const S* s0 = static_cast<const S*>(m.src0);
  const S* s1 = static_cast<const S*>(m.src1);
  S* d0 = static_cast<S*>(m.dst0);
  S* d1 = static_cast<S*>(m.dst1);
  const bool a =
      AlignedTo(s0, sizeof(S)) && AlignedTo(s1, sizeof(S)) && AlignedTo(d0, sizeof(S)) && AlignedTo(d1, sizeof(S));
  for (uint64_t i = begin + threadIdx.x; i < m.count; i += blockDim.x) {
    S v = LoadElem(s0 + i, a);
    if (s1 != nullptr) v = Combine<D, Op>(v, LoadElem(s1 + i, a));
    if (m.divisor != 0) v = Divide<D>(v, m.divisor);
    StoreElem(d0 + i, v, a);
    if (d1 != nullptr) StoreElem(d1 + i, v, a);
  }
}

// Moves m.count elements; call from every thread of the block.
template <DataType D, typename Op>
__device__ __forceinline__ void ReduceCopy(const MoveArgs& m) {
  using S = typename Elem<D>::Storage;
  const bool aligned = Aligned16(m.src0) && Aligned16(m.dst0) && (m.src1 == nullptr || Aligned16(m.src1)) &&
                       (m.dst1 == nullptr || Aligned16(m.dst1));
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
