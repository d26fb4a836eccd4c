// The SM copy (copy_kernel.h): 16-byte packs, four in flight per thread so
// the reads of a peer's memory over NVLink overlap their latency; the last
// bytes that do not make a pack are copied by the first threads one by one.
#include <cstdint>

#include "p2p/cuda_ipc/copy_kernel.h"

namespace gpurun::cuda {
namespace {

constexpr int kUnroll = 4;

__global__ void __launch_bounds__(kCopyThreads)
    CopyPacks(uint4* __restrict__ dst, const uint4* __restrict__ src, size_t packs, unsigned char* tail_dst,
              const unsigned char* tail_src, unsigned tail) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < packs; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(src + i + u * stride);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) __stcs(dst + i + u * stride, v[u]);
  }
  for (; i < packs; i += stride) __stcs(dst + i, __ldcs(src + i));
  if (blockIdx.x == 0 && threadIdx.x < tail) tail_dst[threadIdx.x] = tail_src[threadIdx.x];
}

}  // namespace

cudaError_t LaunchCopy(void* dst, const void* src, size_t bytes, int blocks, cudaStream_t stream) {
  const size_t packs = bytes / sizeof(uint4);
  const auto tail = static_cast<unsigned>(bytes % sizeof(uint4));
  const size_t needed = (packs + kCopyThreads - 1) / kCopyThreads;
  const int grid = static_cast<int>(needed < static_cast<size_t>(blocks) ? (needed == 0 ? 1 : needed) : blocks);
  CopyPacks<<<grid, kCopyThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src), packs,
                                               static_cast<unsigned char*>(dst) + packs * sizeof(uint4),
                                               static_cast<const unsigned char*>(src) + packs * sizeof(uint4), tail);
  return cudaGetLastError();
}

}  // namespace gpurun::cuda
