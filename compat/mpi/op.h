// Reduction operations of the MPI layer: the predefined ops over every
// element kind MPI allows them on (others are MPI_ERR_OP), user ops from
// MPI_Op_create, and the mapping onto gpurun's own types and ops when one
// exists (then collectives run through gpurun, GPU kernels included).
#ifndef GPURUN_COMPAT_MPI_OP_H_
#define GPURUN_COMPAT_MPI_OP_H_

#include <cstddef>

#include "compat/mpi/datatype.h"
#include "compat/mpi/errors.h"
#include "gpurun/gpurun.h"
#include "mpi.h"

namespace gpurun::mpi {

struct OpInfo {
  MPI_Op handle = MPI_OP_NULL;
  MPI_User_function* fn = nullptr;  // null for predefined ops
  bool commute = true;
};

// A live op, or MPI_ERR_OP.
Error CheckOp(MPI_Op op, OpInfo* out);
// Whether `op` may reduce elements of `t` (MPI_ERR_OP otherwise, naming both).
Error CheckOpType(const OpInfo& op, const Datatype& t);

// gpurun's type and op for a reduction of `t` by `op`, when gpurun has them:
// a contiguous type of one integer or floating kind, and SUM, PROD, MAX or MIN
// (*elems: gpurun elements per instance).
bool GrReduction(const OpInfo& op, const Datatype& t, grDataType_t* type, grRedOp_t* gr_op, size_t* elems);

// inout = in op inout, `count` instances of `t` packed (host memory).
// `handle` is the datatype handle handed to user functions.
Error ApplyOp(const OpInfo& op, MPI_Datatype handle, const Datatype& t, const void* in, void* inout, size_t count);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_OP_H_
