// The reduction tables of reduce.h: one plain loop per (type, op) over typed
// pointers, so the compiler vectorises each (coll/CMakeLists.txt gives this
// file the cost model that allows it); 16-bit floats go through float.
#include "coll/host/reduce.h"

#include <type_traits>

#include "coll/host/half.h"

namespace gpurun::coll {
namespace {

// Tags of the 16-bit float formats (stored as uint16_t).
struct Fp16 {
  static float ToFloat(uint16_t v) { return HalfToFloat(v); }
  static uint16_t FromFloat(float f) { return FloatToHalf(f); }
};
struct Bf16 {
  static float ToFloat(uint16_t v) { return Bf16ToFloat(v); }
  static uint16_t FromFloat(float f) { return FloatToBf16(f); }
};

// Wrapping arithmetic for integers (signed overflow is undefined in C++).
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    // Promote small types through unsigned (uint16_t * uint16_t would go via int).
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

struct OpSum {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapAdd(a, b);
  }
};
struct OpProd {
  template <typename T>
  static T Apply(T a, T b) {
    return WrapMul(a, b);
  }
};
struct OpMax {
  template <typename T>
  static T Apply(T a, T b) {
    return b > a ? b : a;
  }
};
struct OpMin {
  template <typename T>
  static T Apply(T a, T b) {
    return b < a ? b : a;
  }
};

template <typename T, typename Op>
void ReduceLoop(void* dst, const void* a, const void* b, uint64_t n) {
  T* d = static_cast<T*>(dst);
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  for (uint64_t i = 0; i < n; ++i) d[i] = Op::Apply(x[i], y[i]);
}

template <typename F, typename Op>
void ReduceLoop16(void* dst, const void* a, const void* b, uint64_t n) {
  auto* d = static_cast<uint16_t*>(dst);
  const auto* x = static_cast<const uint16_t*>(a);
  const auto* y = static_cast<const uint16_t*>(b);
  for (uint64_t i = 0; i < n; ++i) d[i] = F::FromFloat(Op::Apply(F::ToFloat(x[i]), F::ToFloat(y[i])));
}

template <typename T>
void DivideLoop(void* data, uint64_t n, uint64_t divisor) {
  T* d = static_cast<T*>(data);
  if constexpr (std::is_integral_v<T>) {
    const T div = static_cast<T>(divisor);
    for (uint64_t i = 0; i < n; ++i) d[i] = static_cast<T>(d[i] / div);
  } else {
    const T div = static_cast<T>(divisor);
    for (uint64_t i = 0; i < n; ++i) d[i] = d[i] / div;
  }
}

template <typename F>
void DivideLoop16(void* data, uint64_t n, uint64_t divisor) {
  auto* d = static_cast<uint16_t*>(data);
  const auto div = static_cast<float>(divisor);
  for (uint64_t i = 0; i < n; ++i) d[i] = F::FromFloat(F::ToFloat(d[i]) / div);
}

template <typename Op>
ReduceFn ForOp(DataType type) {
  switch (type) {
    case DataType::kInt8: return ReduceLoop<int8_t, Op>;
    case DataType::kUint8: return ReduceLoop<uint8_t, Op>;
    case DataType::kInt32: return ReduceLoop<int32_t, Op>;
    case DataType::kUint32: return ReduceLoop<uint32_t, Op>;
    case DataType::kInt64: return ReduceLoop<int64_t, Op>;
    case DataType::kUint64: return ReduceLoop<uint64_t, Op>;
    case DataType::kFloat16: return ReduceLoop16<Fp16, Op>;
    case DataType::kFloat32: return ReduceLoop<float, Op>;
    case DataType::kFloat64: return ReduceLoop<double, Op>;
    case DataType::kBfloat16: return ReduceLoop16<Bf16, Op>;
  }
  return ReduceLoop<uint8_t, Op>;
}

}  // namespace

ReduceFn ReduceFnFor(DataType type, RedOp op) {
  switch (op) {
    case RedOp::kSum:
    case RedOp::kAvg: return ForOp<OpSum>(type);
    case RedOp::kProd: return ForOp<OpProd>(type);
    case RedOp::kMax: return ForOp<OpMax>(type);
    case RedOp::kMin: return ForOp<OpMin>(type);
  }
  return ForOp<OpSum>(type);
}

DivideFn DivideFnFor(DataType type) {
  switch (type) {
    case DataType::kInt8: return DivideLoop<int8_t>;
    case DataType::kUint8: return DivideLoop<uint8_t>;
    case DataType::kInt32: return DivideLoop<int32_t>;
    case DataType::kUint32: return DivideLoop<uint32_t>;
    case DataType::kInt64: return DivideLoop<int64_t>;
    case DataType::kUint64: return DivideLoop<uint64_t>;
    case DataType::kFloat16: return DivideLoop16<Fp16>;
    case DataType::kFloat32: return DivideLoop<float>;
    case DataType::kFloat64: return DivideLoop<double>;
    case DataType::kBfloat16: return DivideLoop16<Bf16>;
  }
  return DivideLoop<uint8_t>;
}

}  // namespace gpurun::coll
