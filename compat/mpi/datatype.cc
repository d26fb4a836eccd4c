// The datatype table (predefined types at their handle numbers, derived
// types after them), the flattening of derived types, and pack/unpack.
#include "compat/mpi/datatype.h"

#include <wchar.h>
#include <complex>
#include <cstddef>
#include <cstring>
#include <mutex>

#include "compat/mpi/device_memory.h"

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

size_t PairValueSize(Elem e) {
  switch (e) {
    case Elem::kFloatInt: return sizeof(float);
    case Elem::kDoubleInt: return sizeof(double);
    case Elem::kLongInt: return sizeof(long);
    case Elem::k2Int: return sizeof(int);
    case Elem::kShortInt: return sizeof(short);
    case Elem::kLDInt: return sizeof(long double);
    default: return 0;
  }
}

size_t PairIndexOffset(Elem e) {
  switch (e) {
    case Elem::kFloatInt: return offsetof(Pair<float>, index);
    case Elem::kDoubleInt: return offsetof(Pair<double>, index);
    case Elem::kLongInt: return offsetof(Pair<long>, index);
    case Elem::k2Int: return offsetof(Pair<int>, index);
    case Elem::kShortInt: return offsetof(ShortInt, index);
    case Elem::kLDInt: return offsetof(Pair<long double>, index);
    default: return 0;
  }
}

struct Predef {
  MPI_Datatype handle;
  const char* name;
  size_t size;
  Elem elem;
};

// Every predefined type; C types' sizes from the compiler (LP64 Linux).
const Predef kPredefined[] = {
    {MPI_CHAR, "MPI_CHAR", 1, Elem::kI8},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, Elem::kI8},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, Elem::kU8},
    {MPI_BYTE, "MPI_BYTE", 1, Elem::kU8},
    {MPI_WCHAR, "MPI_WCHAR", sizeof(wchar_t), Elem::kI32},
    {MPI_SHORT, "MPI_SHORT", sizeof(short), Elem::kI16},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(unsigned short), Elem::kU16},
    {MPI_INT, "MPI_INT", sizeof(int), Elem::kI32},
    {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned), Elem::kU32},
    {MPI_LONG, "MPI_LONG", sizeof(long), Elem::kI64},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long), Elem::kU64},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), Elem::kI64},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", sizeof(unsigned long long), Elem::kU64},
    {MPI_FLOAT, "MPI_FLOAT", sizeof(float), Elem::kF32},
    {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), Elem::kF64},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), Elem::kLD},
    {MPI_INT8_T, "MPI_INT8_T", 1, Elem::kI8},
    {MPI_INT16_T, "MPI_INT16_T", 2, Elem::kI16},
    {MPI_INT32_T, "MPI_INT32_T", 4, Elem::kI32},
    {MPI_INT64_T, "MPI_INT64_T", 8, Elem::kI64},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, Elem::kU8},
    {MPI_UINT16_T, "MPI_UINT16_T", 2, Elem::kU16},
    {MPI_UINT32_T, "MPI_UINT32_T", 4, Elem::kU32},
    {MPI_UINT64_T, "MPI_UINT64_T", 8, Elem::kU64},
    {MPI_C_BOOL, "MPI_C_BOOL", sizeof(bool), Elem::kBool},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", sizeof(std::complex<float>), Elem::kCF},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", sizeof(std::complex<double>), Elem::kCD},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(std::complex<long double>), Elem::kCLD},
    {MPI_AINT, "MPI_AINT", sizeof(MPI_Aint), Elem::kI64},
    {MPI_OFFSET, "MPI_OFFSET", sizeof(MPI_Offset), Elem::kI64},
    {MPI_COUNT, "MPI_COUNT", sizeof(MPI_Count), Elem::kI64},
    {MPI_PACKED, "MPI_PACKED", 1, Elem::kU8},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(Pair<float>), Elem::kFloatInt},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(Pair<double>), Elem::kDoubleInt},
    {MPI_LONG_INT, "MPI_LONG_INT", sizeof(Pair<long>), Elem::kLongInt},
    {MPI_2INT, "MPI_2INT", sizeof(Pair<int>), Elem::k2Int},
    {MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(ShortInt), Elem::kShortInt},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(Pair<long double>), Elem::kLDInt},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", sizeof(bool), Elem::kBool},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", sizeof(std::complex<float>), Elem::kCF},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", sizeof(std::complex<double>), Elem::kCD},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", sizeof(std::complex<long double>), Elem::kCLD},
};
constexpr int kFirstDerived = 64;

// The table of datatypes by handle; predefined ones are filled at first use.
struct Table {
  std::mutex mu;
  std::vector<std::shared_ptr<Datatype>> types;
  Table() : types(kFirstDerived) {
    for (const Predef& p : kPredefined) {
      auto t = std::make_shared<Datatype>();
      t->name = p.name;
      t->size = p.size;
      t->extent = t->true_extent = static_cast<MPI_Aint>(p.size);
      t->blocks = {Block{0, p.size}};
      t->elem = p.elem;
      t->elem_count = 1;
      t->predefined = t->committed = true;
      if (IsPair(p.elem)) {
        // MPI's size of a pair type is its data only (MPI_DOUBLE_INT: 12),
        // its extent the C struct's (16): value, then the int after padding.
        const size_t value = PairValueSize(p.elem);
        t->blocks = {Block{0, value}, Block{static_cast<MPI_Aint>(PairIndexOffset(p.elem)), sizeof(int)}};
        if (PairIndexOffset(p.elem) == value) t->blocks = {Block{0, value + sizeof(int)}};
        t->size = t->true_extent = value + sizeof(int);
        t->true_extent = static_cast<MPI_Aint>(PairIndexOffset(p.elem) + sizeof(int));
      }
      types[p.handle] = std::move(t);
    }
    for (MPI_Datatype marker : {MPI_UB, MPI_LB}) {
      auto t = std::make_shared<Datatype>();
      t->name = marker == MPI_UB ? "MPI_UB" : "MPI_LB";
      t->predefined = t->committed = true;
      types[marker] = std::move(t);
    }
  }
};

Table& Types() {
  static Table* table = new Table();  // never destroyed: used until exit
  return *table;
}

MPI_Datatype Insert(std::shared_ptr<Datatype> t) {
  Table& table = Types();
  std::lock_guard<std::mutex> lock(table.mu);
  for (size_t i = kFirstDerived; i < table.types.size(); ++i) {
    if (table.types[i] == nullptr) {
      table.types[i] = std::move(t);
      return static_cast<MPI_Datatype>(i);
    }
  }
  table.types.push_back(std::move(t));
  return static_cast<MPI_Datatype>(table.types.size() - 1);
}

// Appends `count` instances of `old` starting at `disp` bytes to `out`.
void AppendInstances(Datatype& out, const Datatype& old, MPI_Aint disp, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const MPI_Aint base = disp + static_cast<MPI_Aint>(i) * old.extent;
    for (const Block& b : old.blocks) {
      const MPI_Aint off = base + b.offset;
      if (!out.blocks.empty() && out.blocks.back().offset + (MPI_Aint)out.blocks.back().bytes == off) {
        out.blocks.back().bytes += b.bytes;
      } else {
        out.blocks.push_back(Block{off, b.bytes});
      }
    }
  }
}

// One piece of a derived type: `count` instances of `old` at byte `disp`.
struct Piece {
  MPI_Aint disp;
  size_t count;
  std::shared_ptr<const Datatype> old;
};

// Builds a derived type from its pieces (type-map order), with MPI's lb and
// extent rules (explicit MPI_LB/MPI_UB markers honored).
std::shared_ptr<Datatype> Build(const std::vector<Piece>& pieces, int combiner) {
  auto t = std::make_shared<Datatype>();
  t->combiner = combiner;
  bool first = true, mixed = false, any_data = false;
  MPI_Aint lb = 0, ub = 0, tlb = 0, tub = 0;
  bool have_lb_marker = false, have_ub_marker = false;
  MPI_Aint lb_marker = 0, ub_marker = 0;
  for (const Piece& p : pieces) {
    if (p.count == 0) continue;
    if (p.old->size == 0 && p.old->name == "MPI_LB") {
      lb_marker = have_lb_marker ? std::min(lb_marker, p.disp) : p.disp;
      have_lb_marker = true;
      continue;
    }
    if (p.old->size == 0 && p.old->name == "MPI_UB") {
      ub_marker = have_ub_marker ? std::max(ub_marker, p.disp) : p.disp;
      have_ub_marker = true;
      continue;
    }
    const MPI_Aint plb = p.disp + p.old->lb;
    const MPI_Aint pub = p.disp + static_cast<MPI_Aint>(p.count - 1) * p.old->extent + p.old->lb + p.old->extent;
    const MPI_Aint ptlb = p.disp + p.old->true_lb;
    const MPI_Aint ptub =
        p.disp + static_cast<MPI_Aint>(p.count - 1) * p.old->extent + p.old->true_lb + p.old->true_extent;
    lb = first ? plb : std::min(lb, plb);
    ub = first ? pub : std::max(ub, pub);
    if (p.old->size > 0) {
      tlb = any_data ? std::min(tlb, ptlb) : ptlb;
      tub = any_data ? std::max(tub, ptub) : ptub;
      if (!any_data) {
        t->elem = p.old->elem;
      } else if (t->elem != p.old->elem) {
        mixed = true;
      }
      any_data = true;
    }
    first = false;
    AppendInstances(*t, *p.old, p.disp, p.count);
    t->size += p.count * p.old->size;
    t->elem_count += p.count * p.old->elem_count;
  }
  if (have_lb_marker) lb = lb_marker;
  if (have_ub_marker) ub = ub_marker;
  t->lb = lb;
  t->extent = ub - lb;
  t->true_lb = tlb;
  t->true_extent = tub - tlb;
  if (mixed || !any_data) t->elem = Elem::kNone;
  if (mixed) t->elem_count = 0;
  return t;
}

int Make(const std::vector<Piece>& pieces, int combiner, MPI_Datatype* newtype) {
  *newtype = Insert(Build(pieces, combiner));
  return MPI_SUCCESS;
}

// Checks a constructor's old type (committed or not) and the output pointer.
Error CheckOld(MPI_Datatype oldtype, MPI_Datatype* newtype, int count, std::shared_ptr<const Datatype>* old) {
  if (newtype == nullptr) return Fail(MPI_ERR_ARG, "newtype is null");
  if (count < 0) return Fail(MPI_ERR_COUNT, "count " + std::to_string(count) + " is negative");
  *old = FindType(oldtype);
  if (*old == nullptr) return Fail(MPI_ERR_TYPE, "oldtype " + std::to_string(oldtype) + " is not a datatype");
  return Ok();
}

}  // namespace

bool IsPair(Elem e) { return e >= Elem::kFloatInt && e <= Elem::kLDInt; }

std::shared_ptr<const Datatype> FindType(MPI_Datatype t) {
  Table& table = Types();
  std::lock_guard<std::mutex> lock(table.mu);
  if (t <= 0 || static_cast<size_t>(t) >= table.types.size()) return nullptr;
  return table.types[t];
}

Error CheckType(MPI_Datatype t, const char* what, std::shared_ptr<const Datatype>* out) {
  auto type = FindType(t);
  if (type == nullptr) return Fail(MPI_ERR_TYPE, std::string(what) + " " + std::to_string(t) + " is not a datatype");
  if (!type->committed) return Fail(MPI_ERR_TYPE, std::string(what) + " " + type->name + " is not committed");
  *out = std::move(type);
  return Ok();
}

size_t SpanBytes(size_t count, const Datatype& t) {
  if (count == 0 || t.size == 0) return 0;
  return static_cast<size_t>(static_cast<MPI_Aint>(count - 1) * t.extent + t.true_extent);
}

void PackHost(const void* buf, size_t count, const Datatype& t, std::byte* out) {
  const auto* base = static_cast<const std::byte*>(buf);
  if (t.Contiguous()) {
    if (count * t.size > 0) std::memcpy(out, base, count * t.size);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    const std::byte* inst = base + static_cast<MPI_Aint>(i) * t.extent;
    for (const Block& b : t.blocks) {
      std::memcpy(out, inst + b.offset, b.bytes);
      out += b.bytes;
    }
  }
}

void UnpackHost(const std::byte* in, size_t bytes, size_t count, const Datatype& t, void* buf) {
  auto* base = static_cast<std::byte*>(buf);
  if (t.Contiguous()) {
    const size_t n = std::min(bytes, count * t.size);
    if (n > 0) std::memcpy(base, in, n);
    return;
  }
  for (size_t i = 0; i < count && bytes > 0; ++i) {
    std::byte* inst = base + static_cast<MPI_Aint>(i) * t.extent;
    for (const Block& b : t.blocks) {
      const size_t n = std::min(bytes, b.bytes);
      std::memcpy(inst + b.offset, in, n);
      in += n;
      bytes -= n;
      if (bytes == 0) return;
    }
  }
}

Error Pack(const void* buf, size_t count, const Datatype& t, std::byte* out) {
  if (!IsDevice(buf)) {
    PackHost(buf, count, t, out);
    return Ok();
  }
  if (t.Contiguous()) return CopyBytes(out, buf, count * t.size);
  std::vector<std::byte> span(SpanBytes(count, t));
  MPI_RETURN_IF_ERROR(CopyBytes(span.data(), static_cast<const std::byte*>(buf) + t.true_lb, span.size()));
  PackHost(span.data() - t.true_lb, count, t, out);
  return Ok();
}

Error Unpack(const std::byte* in, size_t bytes, size_t count, const Datatype& t, void* buf) {
  if (!IsDevice(buf)) {
    UnpackHost(in, bytes, count, t, buf);
    return Ok();
  }
  if (t.Contiguous()) return CopyBytes(buf, in, std::min(bytes, count * t.size));
  std::vector<std::byte> span(SpanBytes(count, t));
  std::byte* dev = static_cast<std::byte*>(buf) + t.true_lb;
  MPI_RETURN_IF_ERROR(CopyBytes(span.data(), dev, span.size()));
  UnpackHost(in, bytes, count, t, span.data() - t.true_lb);
  return CopyBytes(dev, span.data(), span.size());
}

}  // namespace gpurun::mpi

using gpurun::mpi::Datatype;
using gpurun::mpi::Error;
using gpurun::mpi::Piece;
using gpurun::mpi::ReportWorld;

#define TYPE_CHECK(what, expr)                  \
  do {                                          \
    const Error e_ = (expr);                    \
    if (!e_.ok()) return ReportWorld(what, e_); \
  } while (0)

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const Datatype> old;
  TYPE_CHECK("MPI_Type_contiguous", gpurun::mpi::CheckOld(oldtype, newtype, count, &old));
  return gpurun::mpi::Make({Piece{0, static_cast<size_t>(count), old}}, MPI_COMBINER_CONTIGUOUS, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const Datatype> old;
  TYPE_CHECK("MPI_Type_create_hvector", gpurun::mpi::CheckOld(oldtype, newtype, count, &old));
  if (blocklength < 0)
    return ReportWorld("MPI_Type_create_hvector", gpurun::mpi::Fail(MPI_ERR_ARG, "negative blocklength"));
  std::vector<Piece> pieces;
  for (int i = 0; i < count; ++i) pieces.push_back(Piece{i * stride, static_cast<size_t>(blocklength), old});
  return gpurun::mpi::Make(pieces, MPI_COMBINER_HVECTOR, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  auto old = gpurun::mpi::FindType(oldtype);
  if (old == nullptr)
    return ReportWorld("MPI_Type_vector", gpurun::mpi::Fail(MPI_ERR_TYPE, "oldtype is not a datatype"));
  const int rc = MPI_Type_create_hvector(count, blocklength, stride * old->extent, oldtype, newtype);
  return rc;
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[], MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  std::shared_ptr<const Datatype> old;
  TYPE_CHECK("MPI_Type_create_hindexed", gpurun::mpi::CheckOld(oldtype, newtype, count, &old));
  std::vector<Piece> pieces;
  for (int i = 0; i < count; ++i) {
    if (blocklengths[i] < 0)
      return ReportWorld("MPI_Type_create_hindexed", gpurun::mpi::Fail(MPI_ERR_ARG, "negative blocklength"));
    pieces.push_back(Piece{displacements[i], static_cast<size_t>(blocklengths[i]), old});
  }
  return gpurun::mpi::Make(pieces, MPI_COMBINER_HINDEXED, newtype);
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  auto old = gpurun::mpi::FindType(oldtype);
  if (old == nullptr)
    return ReportWorld("MPI_Type_indexed", gpurun::mpi::Fail(MPI_ERR_TYPE, "oldtype is not a datatype"));
  std::vector<MPI_Aint> bytes(count > 0 ? count : 0);
  for (int i = 0; i < count; ++i) bytes[i] = displacements[i] * old->extent;
  return MPI_Type_create_hindexed(count, blocklengths, bytes.data(), oldtype, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                  MPI_Datatype* newtype) {
  std::vector<int> lengths(count > 0 ? count : 0, blocklength);
  return MPI_Type_indexed(count, lengths.data(), displacements, oldtype, newtype);
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* newtype) {
  if (newtype == nullptr || count < 0) {
    return ReportWorld("MPI_Type_create_struct", gpurun::mpi::Fail(MPI_ERR_ARG, "newtype is null or count negative"));
  }
  std::vector<Piece> pieces;
  for (int i = 0; i < count; ++i) {
    auto old = gpurun::mpi::FindType(types[i]);
    if (old == nullptr || blocklengths[i] < 0) {
      return ReportWorld(
          "MPI_Type_create_struct",
          gpurun::mpi::Fail(MPI_ERR_TYPE, "array_of_types[" + std::to_string(i) + "] is not a datatype"));
    }
    pieces.push_back(Piece{displacements[i], static_cast<size_t>(blocklengths[i]), old});
  }
  return gpurun::mpi::Make(pieces, MPI_COMBINER_STRUCT, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  std::shared_ptr<const Datatype> old;
  TYPE_CHECK("MPI_Type_create_resized", gpurun::mpi::CheckOld(oldtype, newtype, 0, &old));
  auto t = std::make_shared<Datatype>(*old);
  t->name.clear();
  t->predefined = t->committed = false;
  t->combiner = MPI_COMBINER_RESIZED;
  t->lb = lb;
  t->extent = extent;
  *newtype = gpurun::mpi::Insert(std::move(t));
  return MPI_SUCCESS;
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  std::shared_ptr<const Datatype> old;
  TYPE_CHECK("MPI_Type_dup", gpurun::mpi::CheckOld(oldtype, newtype, 0, &old));
  auto t = std::make_shared<Datatype>(*old);
  t->predefined = false;
  *newtype = gpurun::mpi::Insert(std::move(t));
  return MPI_SUCCESS;
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  if (datatype == nullptr) return ReportWorld("MPI_Type_commit", gpurun::mpi::Fail(MPI_ERR_ARG, "datatype is null"));
  gpurun::mpi::Table& table = gpurun::mpi::Types();
  std::lock_guard<std::mutex> lock(table.mu);
  if (*datatype <= 0 || static_cast<size_t>(*datatype) >= table.types.size() || table.types[*datatype] == nullptr) {
    return ReportWorld("MPI_Type_commit", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  }
  table.types[*datatype]->committed = true;
  return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype* datatype) {
  if (datatype == nullptr) return ReportWorld("MPI_Type_free", gpurun::mpi::Fail(MPI_ERR_ARG, "datatype is null"));
  gpurun::mpi::Table& table = gpurun::mpi::Types();
  std::lock_guard<std::mutex> lock(table.mu);
  if (*datatype < gpurun::mpi::kFirstDerived || static_cast<size_t>(*datatype) >= table.types.size() ||
      table.types[*datatype] == nullptr) {
    return ReportWorld("MPI_Type_free",
                       gpurun::mpi::Fail(MPI_ERR_TYPE, "not a derived datatype (predefined types cannot be freed)"));
  }
  table.types[*datatype] = nullptr;  // operations in flight hold their own reference
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr || size == nullptr)
    return ReportWorld("MPI_Type_size", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  *size = static_cast<int>(t->size);
  return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr || size == nullptr)
    return ReportWorld("MPI_Type_size_x", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr) return ReportWorld("MPI_Type_get_extent", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  *lb = t->lb;
  *extent = t->extent;
  return MPI_SUCCESS;
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr) return ReportWorld("MPI_Type_get_true_extent", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  *true_lb = t->true_lb;
  *true_extent = t->true_extent;
  return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr) return ReportWorld("MPI_Type_get_name", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  const std::string name = t->name.substr(0, MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, name.c_str(), name.size() + 1);
  *resultlen = static_cast<int>(name.size());
  return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  gpurun::mpi::Table& table = gpurun::mpi::Types();
  std::lock_guard<std::mutex> lock(table.mu);
  if (datatype <= 0 || static_cast<size_t>(datatype) >= table.types.size() || table.types[datatype] == nullptr) {
    return ReportWorld("MPI_Type_set_name", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  }
  table.types[datatype]->name = type_name;
  return MPI_SUCCESS;
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm, int* size) {
  auto t = gpurun::mpi::FindType(datatype);
  if (t == nullptr || incount < 0)
    return ReportWorld("MPI_Pack_size", gpurun::mpi::Fail(MPI_ERR_TYPE, "not a datatype"));
  *size = static_cast<int>(incount * t->size);
  return MPI_SUCCESS;
}

int MPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
             MPI_Comm comm) {
  std::shared_ptr<const Datatype> t;
  TYPE_CHECK("MPI_Pack", gpurun::mpi::CheckType(datatype, "datatype", &t));
  const size_t bytes = static_cast<size_t>(incount) * t->size;
  if (incount < 0 || *position < 0 || *position + bytes > static_cast<size_t>(outsize)) {
    return gpurun::mpi::Report(comm, "MPI_Pack", gpurun::mpi::Fail(MPI_ERR_TRUNCATE, "outbuf too small"));
  }
  TYPE_CHECK("MPI_Pack", gpurun::mpi::Pack(inbuf, incount, *t, static_cast<std::byte*>(outbuf) + *position));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int MPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
               MPI_Comm comm) {
  std::shared_ptr<const Datatype> t;
  TYPE_CHECK("MPI_Unpack", gpurun::mpi::CheckType(datatype, "datatype", &t));
  const size_t bytes = static_cast<size_t>(outcount) * t->size;
  if (outcount < 0 || *position < 0 || *position + bytes > static_cast<size_t>(insize)) {
    return gpurun::mpi::Report(comm, "MPI_Unpack", gpurun::mpi::Fail(MPI_ERR_TRUNCATE, "inbuf holds too little data"));
  }
  TYPE_CHECK("MPI_Unpack",
             gpurun::mpi::Unpack(static_cast<const std::byte*>(inbuf) + *position, bytes, outcount, *t, outbuf));
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}

}  // extern "C"
