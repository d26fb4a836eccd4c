// The stream-ordered point-to-point kernel (p2p_launch.h) and its launch,
// callable from host code compiled without CUDA headers (coll/gpu).
#ifndef GPURUN_COLL_DEVICE_P2P_KERNEL_H_
#define GPURUN_COLL_DEVICE_P2P_KERNEL_H_

#include "coll/device/p2p_launch.h"

namespace gpurun::coll::dev {

// Threads per block of the point-to-point kernel.
inline constexpr int kP2pThreads = 512;

// Launches launch.nblocks blocks of the kernel on `stream` (a
// cudaStream_t); returns the cudaError_t of the launch. The group form
// carries up to kMaxP2pGroupOps operations.
int LaunchP2pKernel(const DevP2pLaunch& launch, void* stream);
int LaunchP2pKernel(const DevP2pGroupLaunch& launch, void* stream);

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_P2P_KERNEL_H_
