// Predictable inputs and closed-form expected outputs (see coll_data.h).
#include "bench/coll_data.h"

#include <cmath>
#include <cstdint>

#include "bench/elem_codec.h"

double InputValue(const DataPattern& p, int rank, size_t index) {
  const uint64_t mix =
      static_cast<uint64_t>(index) * 7 + static_cast<uint64_t>(rank) * 13 + static_cast<uint64_t>(p.iter) * 5;
  if (IsReduction(p.kind) && p.op == grProd) return (rank < 6 && mix % 3 == 0) ? 2 : 1;
  const uint64_t modulus = IsReduction(p.kind) ? 8 : 101;
  const int64_t shift = IsSigned(p.type) ? static_cast<int64_t>(modulus / 2) : 0;
  return static_cast<double>(static_cast<int64_t>(mix % modulus) - shift);
}

double ReducedValue(const DataPattern& p, size_t index) {
  double acc = InputValue(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const double v = InputValue(p, r, index);
    switch (p.op) {
      case grSum:
      case grAvg: acc += v; break;
      case grProd: acc *= v; break;
      case grMax: acc = std::fmax(acc, v); break;
      case grMin: acc = std::fmin(acc, v); break;
      default: break;
    }
  }
  acc = RoundToType(p.type, acc);  // exact for floats; wraps for integers
  if (p.op != grAvg) return acc;
  if (IsFloating(p.type)) return RoundToType(p.type, acc / p.nranks);
  return RoundToType(p.type, std::trunc(acc / p.nranks));
}

double ExpectedValue(const DataPattern& p, const CollLayout& l, int rank, size_t index) {
  const size_t r = static_cast<size_t>(rank);
  const size_t count = l.count;
  switch (p.kind) {
    case CollKind::kAllreduce:
    case CollKind::kReduce: return ReducedValue(p, index);
    case CollKind::kReduceScatter: return ReducedValue(p, r * count + index);
    case CollKind::kBcast: return InputValue(p, p.root, index);
    case CollKind::kAllgather:
    case CollKind::kGather: return InputValue(p, static_cast<int>(index / count), index % count);
    case CollKind::kScatter: return InputValue(p, p.root, r * count + index);
    case CollKind::kAlltoall: return InputValue(p, static_cast<int>(index / count), r * count + index % count);
    case CollKind::kSendrecv: return InputValue(p, RingPrev(rank, p.nranks), index);
    case CollKind::kBarrier: break;
  }
  return NAN;
}

bool ValueMatches(const DataPattern& p, double got, double expected) {
  if (IsFloating(p.type) && IsReduction(p.kind) && p.op == grAvg) {
    return std::fabs(got - expected) <= 2 * Ulp(p.type, expected);
  }
  return got == expected;
}
