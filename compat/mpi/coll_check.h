// Argument checks shared by the collectives.
#ifndef GPURUN_COMPAT_MPI_COLL_CHECK_H_
#define GPURUN_COMPAT_MPI_COLL_CHECK_H_

#include <memory>
#include <string>

#include "compat/mpi/comm.h"
#include "compat/mpi/datatype.h"
#include "compat/mpi/errors.h"

namespace gpurun::mpi {

using TypePtr = std::shared_ptr<const Datatype>;

inline Error CheckCount(int count, const char* what) {
  if (count >= 0) return Ok();
  return Fail(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
}

inline Error CheckRoot(const Comm& c, int root) {
  if (root >= 0 && root < c.size) return Ok();
  return Fail(MPI_ERR_ROOT,
              "root " + std::to_string(root) + " is not a rank of a communicator of " + std::to_string(c.size));
}

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_COLL_CHECK_H_
