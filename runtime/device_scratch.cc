// A communicator's GPU scratch buffer (device_scratch.h).
#include "runtime/device_scratch.h"

#include <string>

#if GPURUN_HAVE_GPU_COLL
#include <cuda_runtime.h>

#include "p2p/cuda_ipc/cuda_status.h"
#endif

namespace gpurun {

DeviceScratch::~DeviceScratch() { Free(); }

void DeviceScratch::Free() {
#if GPURUN_HAVE_GPU_COLL
  if (data_ != nullptr) {
    int saved = 0;
    const bool restore = cudaGetDevice(&saved) == cudaSuccess;
    cudaSetDevice(device_);
    cudaFree(data_);  // at process exit CUDA may be gone already: nothing to report then
    if (restore) cudaSetDevice(saved);
  }
#endif
  data_ = nullptr;
  bytes_ = 0;
  device_ = -1;
}

StatusOr<std::byte*> DeviceScratch::Get(int device, size_t bytes) {
  if (data_ != nullptr && device == device_ && bytes <= bytes_) return static_cast<std::byte*>(data_);
#if GPURUN_HAVE_GPU_COLL
  Free();
  int saved = 0;
  GR_CUDA_RETURN_IF_ERROR(cudaGetDevice(&saved));
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  const cudaError_t allocated = cudaMalloc(&data_, bytes == 0 ? 1 : bytes);
  cudaSetDevice(saved);
  if (allocated != cudaSuccess) {
    data_ = nullptr;
    return cuda::FromCuda(allocated, "cudaMalloc of " + std::to_string(bytes) + " bytes of scratch");
  }
  bytes_ = bytes;
  device_ = device;
  return static_cast<std::byte*>(data_);
#else
  return Unsupported("GPU scratch memory in a build without CUDA");
#endif
}

}  // namespace gpurun
