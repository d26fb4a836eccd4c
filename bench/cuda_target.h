// --device cuda (CUDA builds only): this rank's GPU, chosen before anything
// is allocated, and the target the sweep runs on there: send and receive
// buffers from cudaMalloc, one stream created by the benchmark, and host
// mirrors for the data check.
#ifndef GPURUN_BENCH_CUDA_TARGET_H_
#define GPURUN_BENCH_CUDA_TARGET_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "bench/bench_target.h"
#include "runtime/base/status.h"

// A failed CUDA call as "what: cudaErrorX: description" (grSystemError); OK on cudaSuccess.
gpurun::Status CudaCheck(cudaError_t err, std::string_view what);

struct CudaDeviceInfo {
  int device = 0;
  int count = 0;
  std::string name;
};

// Makes GPURUN_LOCAL_RANK (unset: 0) modulo the visible device count this
// thread's current device (cudaSetDevice).
gpurun::StatusOr<CudaDeviceInfo> SelectCudaDevice();

// Buffers of max_bytes each on the current device (zeroed), a non-blocking
// stream, and, when `check`, host mirrors of max_bytes each.
gpurun::StatusOr<std::unique_ptr<BenchTarget>> MakeCudaTarget(size_t max_bytes, bool check);

#endif  // GPURUN_BENCH_CUDA_TARGET_H_
