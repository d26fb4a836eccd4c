// CUDA IPC buffers and mappings (ipc_memory.h).
#include "p2p/cuda_ipc/ipc_memory.h"

#include <cuda_runtime.h>

#include <cstring>

#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"

namespace gpurun::cuda {

namespace {

// Runs `enqueue` on a private non-blocking stream and waits for it: set-up
// copies and memsets that must not wait for (or be waited for by) the
// program's streams, where a stream-ordered kernel of this process may be
// waiting for a peer that is itself waiting for this set-up (the legacy
// default stream, and cudaDeviceSynchronize, would wait for that kernel).
template <typename F>
Status OnPrivateStream(const char* what, F enqueue) {
  cudaStream_t stream = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  Status status = FromCuda(enqueue(stream), what);
  if (status.ok()) status = FromCuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  cudaStreamDestroy(stream);
  return status;
}

}  // namespace

StatusOr<std::unique_ptr<IpcBuffer>> IpcBuffer::Allocate(int device, size_t bytes) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  void* data = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaMalloc(&data, bytes));
  cudaIpcMemHandle_t h;
  Status status =
      OnPrivateStream("cudaMemsetAsync", [&](cudaStream_t s) { return cudaMemsetAsync(data, 0, bytes, s); });
  if (status.ok()) status = FromCuda(cudaIpcGetMemHandle(&h, data), "cudaIpcGetMemHandle");
  if (!status.ok()) {
    cudaFree(data);
    return status;
  }
  IpcHandle handle;
  static_assert(sizeof(h) == sizeof(handle));
  std::memcpy(handle.data(), &h, sizeof(h));
  return std::unique_ptr<IpcBuffer>(new IpcBuffer(device, data, handle));
}

StatusOr<void*> UploadToDevice(int device, const void* src, size_t bytes) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  void* data = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaMalloc(&data, bytes));
  const Status status = CopyToDevice(device, data, src, bytes);
  if (!status.ok()) {
    cudaFree(data);
    return status;
  }
  return data;
}

Status CopyToDevice(int device, void* dst, const void* src, size_t bytes) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  return OnPrivateStream("cudaMemcpyAsync",
                         [&](cudaStream_t s) { return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, s); });
}

IpcBuffer::~IpcBuffer() {
  cudaSetDevice(device_);
  if (const cudaError_t err = cudaFree(data_); err != cudaSuccess) {
    GR_LOG(Warn, P2p) << "cudaFree of a CUDA IPC buffer failed: " << cudaGetErrorString(err);
  }
}

StatusOr<std::unique_ptr<IpcMapping>> IpcMapping::Open(int device, const IpcHandle& handle) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  cudaIpcMemHandle_t h;
  std::memcpy(&h, handle.data(), sizeof(h));
  void* data = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaIpcOpenMemHandle(&data, h, cudaIpcMemLazyEnablePeerAccess));
  return std::unique_ptr<IpcMapping>(new IpcMapping(device, data));
}

IpcMapping::~IpcMapping() {
  cudaSetDevice(device_);
  if (const cudaError_t err = cudaIpcCloseMemHandle(data_); err != cudaSuccess) {
    GR_LOG(Warn, P2p) << "cudaIpcCloseMemHandle failed: " << cudaGetErrorString(err);
  }
}

}  // namespace gpurun::cuda
