// Status from CUDA runtime results: the failing call, the CUDA error name and
// text. One adapter for every CUDA runtime call of p2p/cuda_ipc and coll/gpu.
#ifndef GPURUN_P2P_CUDA_IPC_CUDA_STATUS_H_
#define GPURUN_P2P_CUDA_IPC_CUDA_STATUS_H_

#include <string_view>

#include "runtime/base/status.h"

namespace gpurun::cuda {

// OkStatus for cudaSuccess (0), else a SystemError naming `call`.
Status FromCuda(int cuda_error, std::string_view call);

}  // namespace gpurun::cuda

// Evaluates a CUDA runtime call and returns its failure as a Status.
#define GR_CUDA_RETURN_IF_ERROR(call) GR_RETURN_IF_ERROR(::gpurun::cuda::FromCuda(static_cast<int>(call), #call))

#endif  // GPURUN_P2P_CUDA_IPC_CUDA_STATUS_H_
