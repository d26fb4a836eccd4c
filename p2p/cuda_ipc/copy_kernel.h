// An SM copy between two GPU buffers (one may be a peer's, mapped through
// CUDA IPC): the sm choice of GPURUN_P2P_DEVICE_COPY (ipc_transfer.h).
#ifndef GPURUN_P2P_CUDA_IPC_COPY_KERNEL_H_
#define GPURUN_P2P_CUDA_IPC_COPY_KERNEL_H_

#include <cuda_runtime.h>

#include <cstddef>

namespace gpurun::cuda {

inline constexpr int kCopyThreads = 512;

// Enqueues a copy of `bytes` from `src` to `dst`, both 16-byte aligned, on
// `stream` with `blocks` blocks of kCopyThreads threads; returns the launch's result.
cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream);

}  // namespace gpurun::cuda

#endif  // GPURUN_P2P_CUDA_IPC_COPY_KERNEL_H_
