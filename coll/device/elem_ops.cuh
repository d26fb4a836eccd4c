// Element types and reduction operators of the device kernels, with the
// host executor's arithmetic (coll/host/reduce.cc) so both paths give the
// same bits: integers wrap, 16-bit floats are widened to float, combined and
// rounded to nearest even once per step (the correctly rounded result, equal
// to __hadd / bf16 add), max/min keep `a` unless `b` is strictly
// greater/smaller, and avg divides once where the final value is made.
#ifndef GPURUN_COLL_DEVICE_ELEM_OPS_CUH_
#define GPURUN_COLL_DEVICE_ELEM_OPS_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "coll/coll_types.h"

namespace gpurun::coll::dev {

// Storage (what memory holds) and compute (what the operator sees) types.
template <DataType D>
struct Elem;

template <typename T>
struct PlainElem {
  using Storage = T;
  using Compute = T;
  static __device__ __forceinline__ Compute Load(Storage v) { return v; }
  static __device__ __forceinline__ Storage Store(Compute v) { return v; }
};

template <>
struct Elem<DataType::kInt8> : PlainElem<int8_t> {};
template <>
struct Elem<DataType::kUint8> : PlainElem<uint8_t> {};
template <>
struct Elem<DataType::kInt32> : PlainElem<int32_t> {};
template <>
struct Elem<DataType::kUint32> : PlainElem<uint32_t> {};
template <>
struct Elem<DataType::kInt64> : PlainElem<int64_t> {};
template <>
struct Elem<DataType::kUint64> : PlainElem<uint64_t> {};
template <>
struct Elem<DataType::kFloat32> : PlainElem<float> {};
template <>
struct Elem<DataType::kFloat64> : PlainElem<double> {};

template <>
struct Elem<DataType::kFloat16> {
  using Storage = uint16_t;
  using Compute = float;
  static __device__ __forceinline__ float Load(uint16_t v) { return __half2float(__ushort_as_half(v)); }
  static __device__ __forceinline__ uint16_t Store(float v) { return __half_as_ushort(__float2half_rn(v)); }
};

template <>
struct Elem<DataType::kBfloat16> {
  using Storage = uint16_t;
  using Compute = float;
  static __device__ __forceinline__ float Load(uint16_t v) { return __bfloat162float(__ushort_as_bfloat16(v)); }
  static __device__ __forceinline__ uint16_t Store(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
};

// Wider unsigned type for wrapping integer arithmetic (small types go
// through unsigned int, as on the host).
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;

struct OpSum {
  template <typename T>
  static __device__ __forceinline__ T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = WrapType<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return a + b;
    }
  }
};
struct OpProd {
  template <typename T>
  static __device__ __forceinline__ T Apply(T a, T b) {
    if constexpr (std::is_integral_v<T>) {
      using U = WrapType<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
struct OpMax {
  template <typename T>
  static __device__ __forceinline__ T Apply(T a, T b) {
    return b > a ? b : a;
  }
};
struct OpMin {
  template <typename T>
  static __device__ __forceinline__ T Apply(T a, T b) {
    return b < a ? b : a;
  }
};

// avg's final step: the sum divided by the rank count, in the element type
// (integers truncate) or, for 16-bit floats, in float then rounded.
template <DataType D>
__device__ __forceinline__ typename Elem<D>::Storage Divide(typename Elem<D>::Storage v, uint32_t divisor) {
  using E = Elem<D>;
  using C = typename E::Compute;
  return E::Store(static_cast<C>(E::Load(v) / static_cast<C>(divisor)));
}

template <DataType D, typename Op>
__device__ __forceinline__ typename Elem<D>::Storage Combine(typename Elem<D>::Storage a, typename Elem<D>::Storage b) {
  using E = Elem<D>;
  return E::Store(Op::Apply(E::Load(a), E::Load(b)));
}

// The same over every element packed in a word `W` (uint64_t: an LL or
// LL128 line's 8 bytes; uint4: the data mover's 16-byte packs).
template <DataType D, typename W>
union PackedElems {
  W word;
  typename Elem<D>::Storage e[sizeof(W) / sizeof(typename Elem<D>::Storage)];
};

template <DataType D, typename Op, typename W>
__device__ __forceinline__ W CombineWord(W a, W b) {
  PackedElems<D, W> x{a}, y{b};
#pragma unroll
  for (auto k = 0u; k < sizeof(x.e) / sizeof(x.e[0]); ++k) x.e[k] = Combine<D, Op>(x.e[k], y.e[k]);
  return x.word;
}

template <DataType D, typename W>
__device__ __forceinline__ W DivideWord(W a, uint32_t divisor) {
  PackedElems<D, W> x{a};
#pragma unroll
  for (auto k = 0u; k < sizeof(x.e) / sizeof(x.e[0]); ++k) x.e[k] = Divide<D>(x.e[k], divisor);
  return x.word;
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_ELEM_OPS_CUH_
