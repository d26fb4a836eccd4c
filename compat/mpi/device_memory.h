// GPU memory seen from the MPI layer, without linking CUDA: the CUDA driver
// (libcuda.so.1) is looked up only if the process has already loaded it — a
// process that has not cannot hold GPU memory — and asked whether a pointer
// is device memory. Copies that involve GPU memory go through cuMemcpy in the
// pointer's own context.
#ifndef GPURUN_COMPAT_MPI_DEVICE_MEMORY_H_
#define GPURUN_COMPAT_MPI_DEVICE_MEMORY_H_

#include <cstddef>

#include "compat/mpi/errors.h"

namespace gpurun::mpi {

// Whether `p` points into GPU memory (false without a loaded CUDA driver).
bool IsDevice(const void* p);

// Copies n bytes between any mix of host and GPU memory.
Error CopyBytes(void* dst, const void* src, size_t n);

}  // namespace gpurun::mpi

#endif  // GPURUN_COMPAT_MPI_DEVICE_MEMORY_H_
