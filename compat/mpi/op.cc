// Predefined reductions per element kind, user ops, and the op table.
#include "compat/mpi/op.h"

#include <climits>
#include <complex>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

namespace gpurun::mpi {
namespace {

template <typename V>
struct Pair {
  V value;
  int index;
};
struct ShortInt {
  short value;
  int index;
};

constexpr int kFirstUserOp = 32;

struct OpTable {
  std::mutex mu;
  std::vector<OpInfo> ops = std::vector<OpInfo>(kFirstUserOp);
  std::vector<bool> live = std::vector<bool>(kFirstUserOp, false);
  OpTable() {
    for (MPI_Op op = MPI_MAX; op <= MPI_NO_OP; ++op) {
      ops[op].handle = op;
      live[op] = true;
    }
  }
};

OpTable& Ops() {
  static OpTable* table = new OpTable();
  return *table;
}

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>> ||
                            std::is_same_v<T, std::complex<long double>>;

// Whether a predefined op applies to T (MPI 4.0 §6.9.2 groups).
template <typename T>
bool Allowed(MPI_Op op) {
  constexpr bool integer = std::is_integral_v<T> && !std::is_same_v<T, bool>;
  constexpr bool floating = std::is_floating_point_v<T>;
  constexpr bool logical = std::is_same_v<T, bool>;
  switch (op) {
    case MPI_MAX:
    case MPI_MIN: return integer || floating;
    case MPI_SUM:
    case MPI_PROD: return integer || floating || kIsComplex<T>;
    case MPI_LAND:
    case MPI_LOR:
    case MPI_LXOR: return integer || logical;
    case MPI_BAND:
    case MPI_BOR:
    case MPI_BXOR: return integer;
    default: return false;
  }
}

template <typename T>
void Reduce(MPI_Op op, const T* in, T* io, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const T a = in[i];
    T& b = io[i];
    if constexpr (kIsComplex<T>) {
      b = op == MPI_SUM ? a + b : a * b;
    } else {
      switch (op) {
        case MPI_MAX: b = a > b ? a : b; break;
        case MPI_MIN: b = a < b ? a : b; break;
        case MPI_SUM: b = static_cast<T>(a + b); break;
        case MPI_PROD: b = static_cast<T>(a * b); break;
        case MPI_LAND: b = static_cast<T>((a != T{}) && (b != T{})); break;
        case MPI_LOR: b = static_cast<T>((a != T{}) || (b != T{})); break;
        case MPI_LXOR: b = static_cast<T>((a != T{}) != (b != T{})); break;
        default:
          if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if (op == MPI_BAND) b = a & b;
            if (op == MPI_BOR) b = a | b;
            if (op == MPI_BXOR) b = a ^ b;
          }
      }
    }
  }
}

template <typename P>
void ReduceLocOne(MPI_Op op, const P& a, P& b) {
  const bool a_wins = op == MPI_MAXLOC ? a.value > b.value : a.value < b.value;
  if (a_wins) {
    b = a;
  } else if (a.value == b.value && a.index < b.index) {
    b.index = a.index;
  }
}

// MAXLOC / MINLOC: the larger (smaller) value; on a tie the smaller index.
// The operands are packed (MPI's data only: the value, then the int, no
// padding), as the layer's reductions see them.
template <typename P>
void ReduceLoc(MPI_Op op, const std::byte* in, std::byte* io, size_t n) {
  constexpr size_t kValue = sizeof(P::value);
  constexpr size_t kPacked = kValue + sizeof(int);
  for (size_t i = 0; i < n; ++i, in += kPacked, io += kPacked) {
    P a, b;
    std::memcpy(&a.value, in, kValue);
    std::memcpy(&a.index, in + kValue, sizeof(int));
    std::memcpy(&b.value, io, kValue);
    std::memcpy(&b.index, io + kValue, sizeof(int));
    ReduceLocOne(op, a, b);
    std::memcpy(io, &b.value, kValue);
    std::memcpy(io + kValue, &b.index, sizeof(int));
  }
}

// Calls f with a null pointer of the C type of kind e.
template <typename F>
void WithType(Elem e, F&& f) {
  switch (e) {
    case Elem::kI8: f(static_cast<int8_t*>(nullptr)); break;
    case Elem::kU8: f(static_cast<uint8_t*>(nullptr)); break;
    case Elem::kI16: f(static_cast<int16_t*>(nullptr)); break;
    case Elem::kU16: f(static_cast<uint16_t*>(nullptr)); break;
    case Elem::kI32: f(static_cast<int32_t*>(nullptr)); break;
    case Elem::kU32: f(static_cast<uint32_t*>(nullptr)); break;
    case Elem::kI64: f(static_cast<int64_t*>(nullptr)); break;
    case Elem::kU64: f(static_cast<uint64_t*>(nullptr)); break;
    case Elem::kF32: f(static_cast<float*>(nullptr)); break;
    case Elem::kF64: f(static_cast<double*>(nullptr)); break;
    case Elem::kLD: f(static_cast<long double*>(nullptr)); break;
    case Elem::kBool: f(static_cast<bool*>(nullptr)); break;
    case Elem::kCF: f(static_cast<std::complex<float>*>(nullptr)); break;
    case Elem::kCD: f(static_cast<std::complex<double>*>(nullptr)); break;
    case Elem::kCLD: f(static_cast<std::complex<long double>*>(nullptr)); break;
    case Elem::kFloatInt: f(static_cast<Pair<float>*>(nullptr)); break;
    case Elem::kDoubleInt: f(static_cast<Pair<double>*>(nullptr)); break;
    case Elem::kLongInt: f(static_cast<Pair<long>*>(nullptr)); break;
    case Elem::k2Int: f(static_cast<Pair<int>*>(nullptr)); break;
    case Elem::kShortInt: f(static_cast<ShortInt*>(nullptr)); break;
    case Elem::kLDInt: f(static_cast<Pair<long double>*>(nullptr)); break;
    case Elem::kNone: break;
  }
}

template <typename T>
constexpr bool kIsPair =
    std::is_same_v<T, Pair<float>> || std::is_same_v<T, Pair<double>> || std::is_same_v<T, Pair<long>> ||
    std::is_same_v<T, Pair<int>> || std::is_same_v<T, ShortInt> || std::is_same_v<T, Pair<long double>>;

const char* OpName(MPI_Op op) {
  static const char* const kNames[] = {"MPI_OP_NULL", "MPI_MAX",    "MPI_MIN",    "MPI_SUM",     "MPI_PROD",
                                       "MPI_LAND",    "MPI_BAND",   "MPI_LOR",    "MPI_BOR",     "MPI_LXOR",
                                       "MPI_BXOR",    "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};
  return op >= 0 && op <= MPI_NO_OP ? kNames[op] : "a user op";
}

}  // namespace

Error CheckOp(MPI_Op op, OpInfo* out) {
  OpTable& table = Ops();
  std::lock_guard<std::mutex> lock(table.mu);
  if (op <= 0 || static_cast<size_t>(op) >= table.ops.size() || !table.live[op]) {
    return Fail(MPI_ERR_OP, "op " + std::to_string(op) + " is not a live operation");
  }
  *out = table.ops[op];
  return Ok();
}

Error CheckOpType(const OpInfo& op, const Datatype& t) {
  if (op.fn != nullptr) return Ok();
  const std::string what =
      std::string(OpName(op.handle)) + " is not defined for datatype " + (t.name.empty() ? "(derived)" : t.name);
  if (t.elem == Elem::kNone) return Fail(MPI_ERR_OP, what + " (its elements are not of one predefined type)");
  if (op.handle == MPI_REPLACE || op.handle == MPI_NO_OP) return Fail(MPI_ERR_OP, what + " (one-sided ops only)");
  bool ok = false;
  WithType(t.elem, [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    if constexpr (kIsPair<T>) {
      ok = op.handle == MPI_MAXLOC || op.handle == MPI_MINLOC;
    } else {
      ok = Allowed<T>(op.handle);
    }
  });
  // MPI_CHAR with MPI_SUM etc. is accepted (as Open MPI and MPICH do): it is kI8.
  return ok ? Ok() : Fail(MPI_ERR_OP, what);
}

bool GrReduction(const OpInfo& op, const Datatype& t, grDataType_t* type, grRedOp_t* gr_op, size_t* elems) {
  if (op.fn != nullptr || !t.Contiguous()) return false;
  switch (op.handle) {
    case MPI_SUM: *gr_op = grSum; break;
    case MPI_PROD: *gr_op = grProd; break;
    case MPI_MAX: *gr_op = grMax; break;
    case MPI_MIN: *gr_op = grMin; break;
    default: return false;
  }
  switch (t.elem) {
    case Elem::kI8: *type = grInt8; break;
    case Elem::kU8: *type = grUint8; break;
    case Elem::kI32: *type = grInt32; break;
    case Elem::kU32: *type = grUint32; break;
    case Elem::kI64: *type = grInt64; break;
    case Elem::kU64: *type = grUint64; break;
    case Elem::kF32: *type = grFloat32; break;
    case Elem::kF64: *type = grFloat64; break;
    default: return false;
  }
  *elems = t.elem_count;
  return true;
}

Error ApplyOp(const OpInfo& op, MPI_Datatype handle, const Datatype& t, const void* in, void* inout, size_t count) {
  if (count == 0) return Ok();
  if (op.fn != nullptr) {
    if (count > static_cast<size_t>(INT_MAX)) return Fail(MPI_ERR_COUNT, "count too large for a user op");
    int len = static_cast<int>(count);
    MPI_Datatype dt = handle;
    if (t.Contiguous()) {
      op.fn(const_cast<void*>(in), inout, &len, &dt);
      return Ok();
    }
    // User functions see the type's own layout: unpack both, apply, pack back.
    const size_t span = static_cast<size_t>(t.extent) * count;
    std::vector<std::byte> a(span), b(span);
    UnpackHost(static_cast<const std::byte*>(in), count * t.size, count, t, a.data() - t.lb);
    UnpackHost(static_cast<const std::byte*>(inout), count * t.size, count, t, b.data() - t.lb);
    op.fn(a.data() - t.lb, b.data() - t.lb, &len, &dt);
    PackHost(b.data() - t.lb, count, t, static_cast<std::byte*>(inout));
    return Ok();
  }
  MPI_RETURN_IF_ERROR(CheckOpType(op, t));
  const size_t n = count * t.elem_count;
  WithType(t.elem, [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    if constexpr (kIsPair<T>) {
      ReduceLoc<T>(op.handle, static_cast<const std::byte*>(in), static_cast<std::byte*>(inout), n);
    } else {
      Reduce(op.handle, static_cast<const T*>(in), static_cast<T*>(inout), n);
    }
  });
  return Ok();
}

}  // namespace gpurun::mpi

extern "C" {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  if (user_fn == nullptr || op == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Op_create", gpurun::mpi::Fail(MPI_ERR_ARG, "user_fn or op is null"));
  }
  gpurun::mpi::OpTable& table = gpurun::mpi::Ops();
  std::lock_guard<std::mutex> lock(table.mu);
  size_t slot = gpurun::mpi::kFirstUserOp;
  while (slot < table.ops.size() && table.live[slot]) ++slot;
  if (slot == table.ops.size()) {
    table.ops.emplace_back();
    table.live.push_back(false);
  }
  table.ops[slot] = gpurun::mpi::OpInfo{static_cast<MPI_Op>(slot), user_fn, commute != 0};
  table.live[slot] = true;
  *op = static_cast<MPI_Op>(slot);
  return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op* op) {
  gpurun::mpi::OpTable& table = gpurun::mpi::Ops();
  std::lock_guard<std::mutex> lock(table.mu);
  if (op == nullptr || *op < gpurun::mpi::kFirstUserOp || static_cast<size_t>(*op) >= table.ops.size() ||
      !table.live[*op]) {
    return gpurun::mpi::ReportWorld("MPI_Op_free", gpurun::mpi::Fail(MPI_ERR_OP, "not a user-defined op"));
  }
  table.live[*op] = false;
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  gpurun::mpi::OpInfo info;
  const gpurun::mpi::Error e = gpurun::mpi::CheckOp(op, &info);
  if (!e.ok()) return gpurun::mpi::ReportWorld("MPI_Op_commutative", e);
  *commute = info.commute ? 1 : 0;
  return MPI_SUCCESS;
}

}  // extern "C"
