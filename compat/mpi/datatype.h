// Datatypes of the MPI layer: every predefined type and the derived ones
// (contiguous, vector, indexed, struct, resized) as a flattened type map —
// the byte blocks of one instance in type-map order — plus the one element
// kind all its elements share (for reductions), if they share one.
// Pack/Unpack walk the blocks; contiguous types move as they are.
#ifndef GPURUN_COMPAT_MPI_DATATYPE_H_
#define GPURUN_COMPAT_MPI_DATATYPE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compat/mpi/errors.h"
#include "mpi.h"

namespace gpurun::mpi {

// The kind of one basic element; reductions are written per kind.
enum class Elem : uint8_t {
  kI8,
  kU8,
  kI16,
  kU16,
  kI32,
  kU32,
  kI64,
  kU64,
  kF32,
  kF64,
  kLD,
  kBool,
  kCF,
  kCD,
  kCLD,  // complex
  kFloatInt,
  kDoubleInt,
  kLongInt,
  k2Int,
  kShortInt,
  kLDInt,  // MAXLOC/MINLOC pairs
  kNone    // no data (MPI_UB/LB) or mixed
};

bool IsPair(Elem e);

struct Block {
  MPI_Aint offset;  // from the start of the instance
  size_t bytes;
};

struct Datatype {
  std::string name;
  size_t size = 0;  // data bytes of one instance
  MPI_Aint lb = 0, extent = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  std::vector<Block> blocks;  // type-map order, adjacent blocks merged
  Elem elem = Elem::kNone;    // the kind of every element, kNone if mixed
  size_t elem_count = 0;      // elements of `elem` in one instance
  int combiner = MPI_COMBINER_NAMED;
  bool predefined = false;
  bool committed = false;
  // One block at offset 0 covering the extent: instances are back to back.
  bool Contiguous() const {
    return size == 0 || (blocks.size() == 1 && blocks[0].offset == 0 && (MPI_Aint)size == extent);
  }
};

// The live datatype of handle `t` (committed or not); null if none.
std::shared_ptr<const Datatype> FindType(MPI_Datatype t);
// A live, committed datatype, or MPI_ERR_TYPE naming `what`.
Error CheckType(MPI_Datatype t, const char* what, std::shared_ptr<const Datatype>* out);

// Packs `count` instances at `buf` (host memory) into `out` (count * size bytes).
void PackHost(const void* buf, size_t count, const Datatype& t, std::byte* out);
// Unpacks at most `bytes` packed bytes into `count` instances at `buf` (host).
void UnpackHost(const std::byte* in, size_t bytes, size_t count, const Datatype& t, void* buf);

// As PackHost/UnpackHost for host or GPU memory at `buf` (GPU memory goes
// through a host copy of the instances' span).
Error Pack(const void* buf, size_t count, const Datatype& t, std::byte* out);
Error Unpack(const std::byte* in, size_t bytes, size_t count, const Datatype& t, void* buf);

// The span of `count` instances: from buf + true_lb, this many bytes.
size_t SpanBytes(size_t count, const Datatype& t);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_DATATYPE_H_
