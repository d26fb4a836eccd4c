// The MPI layer's life cycle: MPI_Init makes gpurun's runtime and the two
// predefined communicators; MPI_Finalize frees every communicator (stopping
// their progress threads) and ends the runtime.
#ifndef GPURUN_COMPAT_MPI_INIT_H_
#define GPURUN_COMPAT_MPI_INIT_H_

#include "compat/mpi/errors.h"

namespace gpurun::mpi {

// OK between MPI_Init and MPI_Finalize; MPI_ERR_OTHER otherwise.
Error CheckInitialized();
// Whether MPI_Init has completed and MPI_Finalize has not.
bool IsInitialized();

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_INIT_H_
