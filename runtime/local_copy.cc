// Own-block copies of the point-to-point collectives (local_copy.h).
#include "runtime/local_copy.h"

#include <cstring>

#include "runtime/buffer_place.h"
#if GPURUN_HAVE_GPU_COLL
#include <cuda_runtime.h>

#include "p2p/cuda_ipc/cuda_status.h"
#endif

namespace gpurun {

LocalCopy::~LocalCopy() {
#if GPURUN_HAVE_GPU_COLL
  if (stream_ != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));  // errors at exit: nothing to do
#endif
}

Status LocalCopy::Start(void* dst, const void* src, size_t bytes) {
  if (bytes == 0 || dst == src) return OkStatus();
#if GPURUN_HAVE_GPU_COLL
  int device = DeviceOrdinalOf(dst);
  if (device < 0) device = DeviceOrdinalOf(src);
  if (device >= 0) {
    int saved = 0;
    GR_CUDA_RETURN_IF_ERROR(cudaGetDevice(&saved));
    GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
    Status started = [&]() -> Status {
      if (stream_ != nullptr && device_ != device) {
        GR_RETURN_IF_ERROR(Wait());
        cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
        stream_ = nullptr;
      }
      if (stream_ == nullptr) {
        cudaStream_t s = nullptr;
        GR_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        stream_ = s;
        device_ = device;
      }
      GR_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream_)));
      pending_ = true;
      return OkStatus();
    }();
    cudaSetDevice(saved);
    return started;
  }
#endif
  std::memcpy(dst, src, bytes);
  return OkStatus();
}

Status LocalCopy::Wait() {
  if (!pending_) return OkStatus();
  pending_ = false;
#if GPURUN_HAVE_GPU_COLL
  GR_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(static_cast<cudaStream_t>(stream_)));
#endif
  return OkStatus();
}

}  // namespace gpurun
