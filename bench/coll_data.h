// Exactly predictable data for checking collectives, in the manner of
// nccl-tests' verifiable inputs: every input element is a small integer
// chosen by (rank, index, iteration), so a sum, product, min or max over the
// ranks is exact in every element type whatever order the ranks' values are
// combined in, and the expected output of each element has a closed form.
//
// Inputs: for sum/avg/min/max (x * 7 + rank * 13 + iter * 5) mod 8, shifted
// to -4..3 for the signed types; for prod 2 or 1 (at most 6 ranks give a 2,
// so products stay exact in int8 and half); for the collectives that only
// move data, mod 101 (-50..50 signed), so blocks of different ranks differ.
// Sums stay exact in bfloat16 up to 64 ranks and in int8 up to 31 ranks;
// beyond, integer types wrap as the element type does, which is still exact.
#ifndef GPURUN_BENCH_COLL_DATA_H_
#define GPURUN_BENCH_COLL_DATA_H_

#include <cstddef>

#include "bench/coll_layout.h"
#include "gpurun/gpurun.h"

// One check iteration's data: which collective, type, op and root, on how many ranks.
struct DataPattern {
  CollKind kind = CollKind::kAllreduce;
  grDataType_t type = grFloat32;
  grRedOp_t op = grSum;
  int root = 0;
  int nranks = 1;
  int iter = 0;
};

// The value of element `index` of `rank`'s send buffer (already representable in the type).
double InputValue(const DataPattern& p, int rank, size_t index);

// The reduction over all ranks of InputValue(., index), as the type computes it.
double ReducedValue(const DataPattern& p, size_t index);

// The value element `index` of `rank`'s receive buffer must hold after the call.
double ExpectedValue(const DataPattern& p, const CollLayout& layout, int rank, size_t index);

// Whether `got` is acceptable for `expected`: exact, except the floating-point
// average (the sum is exact, the division rounds once or twice), which may be
// 2 ulps off, nccl-tests' tolerance.
bool ValueMatches(const DataPattern& p, double got, double expected);

#endif  // GPURUN_BENCH_COLL_DATA_H_
