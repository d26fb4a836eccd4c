// Input sequences, exact reductions and poison of the matrix (pattern.h).
#include "tests/matrix/pattern.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tests/matrix/elem_codec.h"
#include "tests/matrix/matrix_spec.h"

namespace gpurun::matrix {
namespace {

constexpr size_t kChunkBytes = 16 * 1024;

bool IsSigned(grDataType_t type) { return type != grUint8 && type != grUint32 && type != grUint64; }

size_t PeriodOf(ValueKind kind) {
  switch (kind) {
    case ValueKind::kSum: return 9;
    case ValueKind::kProd: return 35;
    case ValueKind::kMinMax: return 201;
    case ValueKind::kMove: return 251;
  }
  return 1;
}

// Cache keys: the input kinds, then the reductions (by op), then poison.
constexpr int kReducedBase = 10;
constexpr int kPoisonKey = 20;

double Reduce(grRedOp_t op, double acc, double v) {
  switch (op) {
    case grSum:
    case grAvg: return acc + v;
    case grProd: return acc * v;
    case grMax: return std::max(acc, v);
    case grMin: return std::min(acc, v);
    default: return acc;
  }
}

bool IsFloating(grDataType_t type) {
  return type == grFloat16 || type == grFloat32 || type == grFloat64 || type == grBfloat16;
}

}  // namespace

ValueKind KindOf(grRedOp_t op) {
  switch (op) {
    case grProd: return ValueKind::kProd;
    case grMax:
    case grMin: return ValueKind::kMinMax;
    default: return ValueKind::kSum;
  }
}

double InputValue(ValueKind kind, grDataType_t type, size_t salt, size_t i) {
  const bool sign = IsSigned(type);
  switch (kind) {
    case ValueKind::kSum: return static_cast<double>((salt * 5 + i * 7) % 9) - (sign ? 4 : 0);
    case ValueKind::kProd: {
      const double magnitude = (salt + i) % 5 == 0 ? 2 : 1;
      return sign && (salt * 3 + i) % 7 == 2 ? -magnitude : magnitude;
    }
    case ValueKind::kMinMax: return static_cast<double>((salt * 37 + i * 11) % 201) - (sign ? 100 : 0);
    case ValueKind::kMove: return static_cast<double>((salt * 37 + i * 11 + 5) % 251) - (sign ? 125 : 0);
  }
  return 0;
}

Pattern::Pattern(grDataType_t type, const std::vector<double>& period, bool poison)
    : type_(type), elem_(TypeBytes(type)), period_(period.size()), poison_(poison) {
  chunk_ = std::max<size_t>(1, kChunkBytes / (period_ * elem_)) * period_;
  rep_.resize((chunk_ + period_) * elem_);
  for (size_t i = 0; i < chunk_ + period_; ++i) {
    if (poison_) {
      std::memset(rep_.data() + i * elem_, kPoisonByte, elem_);
    } else {
      EncodeElem(type, period[i % period_], rep_.data() + i * elem_);
    }
  }
}

void Pattern::Fill(void* dst, size_t count, size_t first) const {
  auto* out = static_cast<unsigned char*>(dst);
  const unsigned char* src = rep_.data() + (first % period_) * elem_;
  while (count > 0) {
    const size_t n = std::min(count, chunk_);
    std::memcpy(out, src, n * elem_);
    out += n * elem_;
    count -= n;
  }
}

size_t Pattern::FirstMismatch(const void* dst, size_t count, size_t first) const {
  const auto* in = static_cast<const unsigned char*>(dst);
  const unsigned char* src = rep_.data() + (first % period_) * elem_;
  for (size_t done = 0; done < count;) {
    const size_t n = std::min(count - done, chunk_);
    if (std::memcmp(in + done * elem_, src, n * elem_) != 0) {
      for (size_t k = 0; k < n; ++k) {
        if (std::memcmp(in + (done + k) * elem_, src + k * elem_, elem_) != 0) return done + k;
      }
    }
    done += n;
  }
  return npos;
}

const Pattern& PatternCache::Get(const Key& key) {
  auto it = patterns_.find(key);
  if (it != patterns_.end()) return *it->second;
  const auto [what, type_index, salt] = key;
  const auto type = static_cast<grDataType_t>(type_index);
  std::unique_ptr<Pattern> made;
  if (what == kPoisonKey) {
    made = std::make_unique<Pattern>(type, std::vector<double>{0}, /*poison=*/true);
  } else if (what >= kReducedBase) {
    const auto op = static_cast<grRedOp_t>(what - kReducedBase);
    const ValueKind kind = KindOf(op);
    std::vector<double> values(PeriodOf(kind));
    for (size_t i = 0; i < values.size(); ++i) {
      double acc = InputValue(kind, type, 0, i);
      for (int r = 1; r < nranks_; ++r) acc = Reduce(op, acc, InputValue(kind, type, r, i));
      if (op == grAvg) acc = IsFloating(type) ? acc / nranks_ : std::trunc(acc / nranks_);
      values[i] = acc;
    }
    made = std::make_unique<Pattern>(type, values);
  } else {
    const auto kind = static_cast<ValueKind>(what);
    std::vector<double> values(PeriodOf(kind));
    for (size_t i = 0; i < values.size(); ++i) values[i] = InputValue(kind, type, salt, i);
    made = std::make_unique<Pattern>(type, values);
  }
  return *patterns_.emplace(key, std::move(made)).first->second;
}

const Pattern& PatternCache::Input(ValueKind kind, grDataType_t type, size_t salt) {
  return Get({static_cast<int>(kind), static_cast<int>(type), salt});
}

const Pattern& PatternCache::Reduced(grDataType_t type, grRedOp_t op) {
  return Get({kReducedBase + static_cast<int>(op), static_cast<int>(type), 0});
}

const Pattern& PatternCache::Poison(grDataType_t type) { return Get({kPoisonKey, static_cast<int>(type), 0}); }

}  // namespace gpurun::matrix
