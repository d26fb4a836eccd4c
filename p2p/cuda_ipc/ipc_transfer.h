// IpcTransfer: the engine's DeviceTransfer (p2p/device_transfer.h) over CUDA
// IPC. A send exports its buffer's allocation (cudaIpcGetMemHandle); the
// receiver opens it (cudaIpcOpenMemHandle, peer access enabled by the driver
// where the GPUs allow it) and copies on a stream of its own per GPU, waited
// for: with the copy engines (cudaMemcpyAsync; GPURUN_P2P_DEVICE_COPY=ce, the
// default, which takes no SM from the application), or with a copy kernel
// (=sm, for 16-byte aligned buffers into device memory). Opened allocations are cached per
// sender, the kCachedPerPeer most recently used ones, because opening costs
// tens of microseconds; a cached mapping keeps the sender's allocation
// alive after the sender frees it, until it is evicted or this process ends.
// Every CUDA call runs on the GPU that holds the device buffer and restores
// the caller's current device. Called under the engine's lock only.
#ifndef GPURUN_P2P_CUDA_IPC_IPC_TRANSFER_H_
#define GPURUN_P2P_CUDA_IPC_IPC_TRANSFER_H_

#include <memory>

#include "p2p/device_transfer.h"

namespace gpurun::cuda {

inline constexpr int kCachedPerPeer = 16;

// A DeviceTransfer for this process (which must have the CUDA driver).
std::unique_ptr<p2p::DeviceTransfer> MakeIpcTransfer();

}  // namespace gpurun::cuda

#endif  // GPURUN_P2P_CUDA_IPC_IPC_TRANSFER_H_
