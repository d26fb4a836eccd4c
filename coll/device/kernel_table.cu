// The kernel table of kernel_table.h over the generated per-type files
// (device_types_built.h lists the built types).
#include <cuda_runtime.h>

#include "coll/device/device_types_built.h"
#include "coll/device/kernel_table.h"

namespace gpurun::coll::dev {

const void* RingKernel(DataType type, RedOp op) {
#define GR_KERNEL_CASE(T) \
  if (type == DataType::T) return RingKernelFor<DataType::T>(op);
  GR_BUILT_DEVICE_TYPES(GR_KERNEL_CASE)
#undef GR_KERNEL_CASE
  return nullptr;
}

const void* TreeKernel(DataType type, RedOp op) {
#define GR_KERNEL_CASE(T) \
  if (type == DataType::T) return TreeKernelFor<DataType::T>(op);
  GR_BUILT_DEVICE_TYPES(GR_KERNEL_CASE)
#undef GR_KERNEL_CASE
  return nullptr;
}

const void* OneShotKernel(DataType type, RedOp op) {
#define GR_KERNEL_CASE(T) \
  if (type == DataType::T) return OneShotKernelFor<DataType::T>(op);
  GR_BUILT_DEVICE_TYPES(GR_KERNEL_CASE)
#undef GR_KERNEL_CASE
  return nullptr;
}

const void* TwoShotKernel(DataType type, RedOp op) {
#define GR_KERNEL_CASE(T) \
  if (type == DataType::T) return TwoShotKernelFor<DataType::T>(op);
  GR_BUILT_DEVICE_TYPES(GR_KERNEL_CASE)
#undef GR_KERNEL_CASE
  return nullptr;
}

const char* BuiltDeviceTypes() { return GR_BUILT_DEVICE_TYPE_NAMES; }

int LaunchRingKernel(const void* kernel, const DevLaunch& launch, int nthreads, void* stream) {
  void* args[] = {const_cast<DevLaunch*>(&launch)};
  const cudaError_t err =
      cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(launch.nblocks)), dim3(static_cast<unsigned>(nthreads)), args,
                       0, static_cast<cudaStream_t>(stream));
  return static_cast<int>(err);
}

int LaunchOneShotKernel(const void* kernel, const DevOneShotLaunch& launch, int blocks, void* stream) {
  void* args[] = {const_cast<DevOneShotLaunch*>(&launch)};
  const cudaError_t err = cudaLaunchKernel(kernel, dim3(static_cast<unsigned>(blocks)), dim3(kOneShotThreads), args, 0,
                                           static_cast<cudaStream_t>(stream));
  return static_cast<int>(err);
}

}  // namespace gpurun::coll::dev
