// DeviceScratch: one GPU buffer a communicator keeps for the temporaries of
// its point-to-point collectives on GPU buffers (an in-place alltoall's copy
// of the blocks it sends). It grows to the largest request and stays, so the
// peers' CUDA IPC mappings of it (p2p/cuda_ipc/ipc_transfer.h) are reused
// from call to call instead of opened anew. Freed with the communicator.
#ifndef GPURUN_RUNTIME_DEVICE_SCRATCH_H_
#define GPURUN_RUNTIME_DEVICE_SCRATCH_H_

#include <cstddef>

#include "runtime/base/status.h"

namespace gpurun {

class DeviceScratch {
 public:
  DeviceScratch() = default;
  ~DeviceScratch();
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  // At least `bytes` of memory on GPU `device` (its contents undefined);
  // valid until the next Get. Unsupported in a build without CUDA.
  StatusOr<std::byte*> Get(int device, size_t bytes);

 private:
  void Free();
  void* data_ = nullptr;
  size_t bytes_ = 0;
  int device_ = -1;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_DEVICE_SCRATCH_H_
