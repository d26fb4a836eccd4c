// CUDA runtime results as Status (cuda_status.h).
#include "p2p/cuda_ipc/cuda_status.h"

#include <cuda_runtime.h>

#include <string>

namespace gpurun::cuda {

Status FromCuda(int cuda_error, std::string_view call) {
  if (cuda_error == 0) return OkStatus();
  const auto err = static_cast<cudaError_t>(cuda_error);
  return SystemError(std::string(call) + " failed: " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

}  // namespace gpurun::cuda
