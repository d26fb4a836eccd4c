// The device kernels this build has, looked up by (element type, operator),
// and their launch. Callable from host code compiled without CUDA headers
// (coll/gpu): kernels are opaque pointers, streams void*, errors the
// cudaError_t value. Which element types are built is one CMake list,
// GPURUN_DEVICE_TYPES (all ten by default; a developer build may name a
// subset to compile faster); a call with another type is an error that says
// so, never a silent fallback.
#ifndef GPURUN_COLL_DEVICE_KERNEL_TABLE_H_
#define GPURUN_COLL_DEVICE_KERNEL_TABLE_H_

#include "coll/coll_types.h"
#include "coll/device/dev_launch.h"
#include "coll/device/oneshot_launch.h"

namespace gpurun::coll::dev {

// Defined (in the generated ring_kernels_<type>.cu) for each built type.
template <DataType D>
const void* RingKernelFor(RedOp op);

template <DataType D>
const void* OneShotKernelFor(RedOp op);

template <DataType D>
const void* TwoShotKernelFor(RedOp op);

// Defined in the generated tree_kernels_<type>.cu.
template <DataType D>
const void* TreeKernelFor(RedOp op);

// The ring kernel of (type, op), or null when this build has not compiled
// that element type.
const void* RingKernel(DataType type, RedOp op);
// The tree allreduce kernel of (type, op) (tree_kernel.cuh), or null;
// launched as the ring kernel is (LaunchRingKernel).
const void* TreeKernel(DataType type, RedOp op);
// The one-shot allreduce kernel of (type, op) (oneshot_launch.h), or null.
const void* OneShotKernel(DataType type, RedOp op);
// The two-shot allreduce kernel of (type, op) (twoshot_kernel.cuh), or null;
// launched as the one-shot kernel is (LaunchOneShotKernel).
const void* TwoShotKernel(DataType type, RedOp op);

// The built element types, comma separated (for error messages).
const char* BuiltDeviceTypes();

// Launches `kernel` with launch.nblocks blocks of `nthreads` threads on
// `stream` (a cudaStream_t); returns the cudaError_t of the launch.
int LaunchRingKernel(const void* kernel, const DevLaunch& launch, int nthreads, void* stream);

// Launches a one-shot or two-shot `kernel` with `blocks` blocks of kOneShotThreads.
int LaunchOneShotKernel(const void* kernel, const DevOneShotLaunch& launch, int blocks, void* stream);

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_KERNEL_TABLE_H_
