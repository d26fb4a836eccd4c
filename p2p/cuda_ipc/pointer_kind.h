// Whether a buffer is host or device memory, asked of the CUDA driver per
// call (cuPointerGetAttributes). The driver is opened with dlopen on first
// use and never initialised by gpurun: in a process that has not used CUDA
// (or on a machine without the driver) every pointer is host memory and the
// question costs one load of a flag. Managed memory counts as device memory
// of the GPU the driver names. Thread-safe.
#ifndef GPURUN_P2P_CUDA_IPC_POINTER_KIND_H_
#define GPURUN_P2P_CUDA_IPC_POINTER_KIND_H_

#include <cstddef>

namespace gpurun::cuda {

struct PointerKind {
  bool device = false;  // device (or managed) memory
  int ordinal = -1;     // the GPU's CUDA ordinal when device
};

// The memory kind of `p` (null: host).
PointerKind KindOf(const void* p);

// The device allocation that holds `p`.
struct DeviceRange {
  bool device = false;   // false: host memory, or the driver could not say
  bool managed = false;  // cudaMallocManaged memory
  int ordinal = -1;
  const void* base = nullptr;        // start of the allocation
  size_t size = 0;                   // its size in bytes
  unsigned long long buffer_id = 0;  // the driver's id of the allocation, never reused in this process
};
DeviceRange RangeOf(const void* p);

// Whether this process has the CUDA driver library at all (cached).
bool DriverPresent();

}  // namespace gpurun::cuda

#endif  // GPURUN_P2P_CUDA_IPC_POINTER_KIND_H_
