// CUDA IPC buffers and mappings (ipc_memory.h).
#include "p2p/cuda_ipc/ipc_memory.h"

#include <cuda_runtime.h>

#include <cstring>

#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"

namespace gpurun::cuda {

StatusOr<std::unique_ptr<IpcBuffer>> IpcBuffer::Allocate(int device, size_t bytes) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  void* data = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaMalloc(&data, bytes));
  cudaIpcMemHandle_t h;
  Status status = FromCuda(cudaMemset(data, 0, bytes), "cudaMemset");
  if (status.ok()) status = FromCuda(cudaIpcGetMemHandle(&h, data), "cudaIpcGetMemHandle");
  if (status.ok()) status = FromCuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  if (!status.ok()) {
    cudaFree(data);
    return status;
  }
  IpcHandle handle;
  static_assert(sizeof(h) == sizeof(handle));
  std::memcpy(handle.data(), &h, sizeof(h));
  return std::unique_ptr<IpcBuffer>(new IpcBuffer(device, data, handle));
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
