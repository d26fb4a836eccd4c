// The matrix's data: periodic element sequences (inputs as nccl-tests makes
// them: small integers, so every op's exact result is representable in every
// type, whatever the order of the operations), the exact reductions of them
// over all ranks, and the poison that fills every output before a call.
//
// Inputs of rank (or sequence) s at element i, for nranks <= kMaxRanks:
//   sum, avg: (5s + 7i) mod 9, minus 4 for signed and floating types:
//             |sum| <= 4 * 16 = 64 fits int8 and is exact in bfloat16
//   prod:     2 when (s + i) mod 5 == 0, else 1; negated for signed and
//             floating types when (3s + i) mod 7 == 2: at most four 2s, so
//             |prod| <= 16
//   min, max: (37s + 11i) mod 201, minus 100 for signed and floating types
//   moves:    (37s + 11i + 5) mod 251, minus 125 for signed and floating
//             types (data that is copied, never reduced)
// avg is as gpurun.h defines grAvg: the sum (exact) divided by nranks,
// truncated toward zero for integers and correctly rounded for floats.
// Periods are odd (9, 35, 201, 251), so a block moved by a power-of-two
// stride never lines up with its own copy.
#ifndef GPURUN_TESTS_MATRIX_PATTERN_H_
#define GPURUN_TESTS_MATRIX_PATTERN_H_

#include <cstddef>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun::matrix {

inline constexpr int kMaxRanks = 16;
inline constexpr unsigned char kPoisonByte = 0xA5;

enum class ValueKind { kSum, kProd, kMinMax, kMove };
ValueKind KindOf(grRedOp_t op);
double InputValue(ValueKind kind, grDataType_t type, size_t salt, size_t i);

// An infinite sequence of elements of one type that repeats with a period.
class Pattern {
 public:
  static constexpr size_t npos = static_cast<size_t>(-1);

  // The sequence whose period is `period` (values encoded as `type`).
  Pattern(grDataType_t type, const std::vector<double>& period, bool poison = false);

  grDataType_t type() const { return type_; }
  bool poison() const { return poison_; }

  // Writes elements first .. first + count - 1 of the sequence to dst.
  void Fill(void* dst, size_t count, size_t first) const;
  // Index (from dst) of the first of `count` elements at dst that differs
  // from elements first.. of the sequence; npos when all match.
  size_t FirstMismatch(const void* dst, size_t count, size_t first) const;
  // Element `index` of the sequence.
  const void* At(size_t index) const { return rep_.data() + (index % period_) * elem_; }

 private:
  grDataType_t type_;
  size_t elem_;
  size_t period_;
  bool poison_;
  size_t chunk_;                    // elements per copy: a multiple of the period
  std::vector<unsigned char> rep_;  // chunk_ + period_ elements of the sequence
};

// The patterns of one job, made on first use.
class PatternCache {
 public:
  explicit PatternCache(int nranks) : nranks_(nranks) {}

  // Sequence `salt` of the given kind (salt: a rank, or a (source, destination) pair).
  const Pattern& Input(ValueKind kind, grDataType_t type, size_t salt);
  // The reduction with `op` of Input(KindOf(op), type, r) over r = 0 .. nranks - 1.
  const Pattern& Reduced(grDataType_t type, grRedOp_t op);
  // kPoisonByte in every byte.
  const Pattern& Poison(grDataType_t type);

 private:
  using Key = std::tuple<int, int, size_t>;  // (what, type, salt)
  const Pattern& Get(const Key& key);

  int nranks_;
  std::map<Key, std::unique_ptr<Pattern>> patterns_;
};

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_PATTERN_H_
