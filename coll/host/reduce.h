// Elementwise reductions on host buffers: for every DataType x RedOp a
// function dst[i] = a[i] op b[i] over n elements, where dst may be a or b
// (the same pointer; partial overlaps are not allowed). fp16 and bf16 are
// widened to float, combined and rounded to nearest even. Integer sum and
// product wrap around (two's complement), as NCCL's do.
//
// Avg reduces as sum during the collective; whoever produces the final value
// calls DivideBy once with the rank count (integers: truncating division), so
// every rank ends up with the same bits.
//
// Thread safety: pure functions.
#ifndef GPURUN_COLL_HOST_REDUCE_H_
#define GPURUN_COLL_HOST_REDUCE_H_

#include <cstdint>

#include "coll/coll_types.h"

namespace gpurun::coll {

using ReduceFn = void (*)(void* dst, const void* a, const void* b, uint64_t n);
using DivideFn = void (*)(void* data, uint64_t n, uint64_t divisor);

// The reduction of (type, op); kAvg gives the sum.
ReduceFn ReduceFnFor(DataType type, RedOp op);
// data[i] /= divisor, for the avg post-operation.
DivideFn DivideFnFor(DataType type);

inline void Reduce(DataType type, RedOp op, void* dst, const void* a, const void* b, uint64_t n) {
  ReduceFnFor(type, op)(dst, a, b, n);
}
inline void DivideBy(DataType type, void* data, uint64_t n, uint64_t divisor) { DivideFnFor(type)(data, n, divisor); }

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_REDUCE_H_
