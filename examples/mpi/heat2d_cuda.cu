/*
 * heat2d's field operations on CUDA device memory (see heat2d.h): a stencil
 * kernel with the residual reduced in the kernel, and column pack/unpack
 * kernels. Each call completes before it returns (the device is synchronized),
 * so MPI may read or write the buffers next. Compiled into heat2d with
 * -DHEAT2D_CUDA; the arithmetic is that of the host ops, so both give the same
 * residuals to the last bit.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "heat2d.h"

namespace {

constexpr int kTile = 16;

// Nonnegative doubles order as their bit patterns do, so an integer atomicMax takes their maximum.
__device__ void AtomicMaxNonNegative(double* address, double value) {
  atomicMax(reinterpret_cast<unsigned long long*>(address),
            static_cast<unsigned long long>(__double_as_longlong(value)));
}

__global__ void StepKernel(const double* u, double* v, int nx, int ny, double* res) {
  __shared__ double block_max[kTile * kTile];
  const int i = blockIdx.x * kTile + threadIdx.x + 1, j = blockIdx.y * kTile + threadIdx.y + 1;
  const int t = threadIdx.y * kTile + threadIdx.x, w = nx + 2;
  double d = 0;
  if (i <= nx && j <= ny) {
    const int k = j * w + i;
    // __dadd_rn/__dmul_rn: no fused multiply-add, the host's rounding.
    const double sum = __dadd_rn(__dadd_rn(u[k - w], u[k + w]), __dadd_rn(u[k - 1], u[k + 1]));
    v[k] = __dmul_rn(0.25, sum);
    d = fabs(v[k] - u[k]);
  }
  block_max[t] = d;
  __syncthreads();
  for (int s = kTile * kTile / 2; s > 0; s /= 2) {
    if (t < s) block_max[t] = fmax(block_max[t], block_max[t + s]);
    __syncthreads();
  }
  if (t == 0) AtomicMaxNonNegative(res, block_max[0]);
}

__global__ void PackKernel(const double* u, int nx, int ny, double* cols) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ny) {
    cols[j] = u[(j + 1) * (nx + 2) + 1];
    cols[ny + j] = u[(j + 1) * (nx + 2) + nx];
  }
}

__global__ void UnpackKernel(double* u, int nx, int ny, const double* cols, int west, int east) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < ny) {
    if (west) u[(j + 1) * (nx + 2)] = cols[j];
    if (east) u[(j + 1) * (nx + 2) + nx + 1] = cols[ny + j];
  }
}

// A failed CUDA call ends the program: the example has no way to go on without its GPU.
void Check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    fprintf(stderr, "heat2d: %s: %s\n", what, cudaGetErrorString(e));
    exit(1);
  }
}

double* Alloc(size_t n) {
  void* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(double)) != cudaSuccess) return nullptr;
  Check(cudaMemset(p, 0, n * sizeof(double)), "cudaMemset");
  return static_cast<double*>(p);
}

void Release(double* p) { Check(cudaFree(p), "cudaFree"); }

void Put(double* dst, const double* src, size_t n) {
  Check(cudaMemcpy(dst, src, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void Get(double* dst, const double* src, size_t n) {
  Check(cudaMemcpy(dst, src, n * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

void Step(const double* u, double* v, int nx, int ny, double* res) {
  Check(cudaMemset(res, 0, sizeof(double)), "cudaMemset");
  const dim3 block(kTile, kTile), grid((nx + kTile - 1) / kTile, (ny + kTile - 1) / kTile);
  StepKernel<<<grid, block>>>(u, v, nx, ny, res);
  Check(cudaGetLastError(), "stencil kernel launch");
  Check(cudaDeviceSynchronize(), "stencil kernel");
}

void Pack(const double* u, int nx, int ny, double* cols) {
  PackKernel<<<(ny + 127) / 128, 128>>>(u, nx, ny, cols);
  Check(cudaGetLastError(), "pack kernel launch");
  Check(cudaDeviceSynchronize(), "pack kernel");
}

void Unpack(double* u, int nx, int ny, const double* cols, int west, int east) {
  UnpackKernel<<<(ny + 127) / 128, 128>>>(u, nx, ny, cols, west, east);
  Check(cudaGetLastError(), "unpack kernel launch");
  Check(cudaDeviceSynchronize(), "unpack kernel");
}

const heat_ops kCudaOps = {"cuda", Alloc, Release, Put, Get, Step, Pack, Unpack};

}  // namespace

extern "C" const heat_ops* heat_cuda_ops(int local_index, char* err, size_t err_len) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    snprintf(err, err_len, "no CUDA device (cudaGetDeviceCount: %s)",
             e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return nullptr;
  }
  const cudaError_t s = cudaSetDevice(local_index % count);
  if (s != cudaSuccess) {
    snprintf(err, err_len, "cudaSetDevice(%d): %s", local_index % count, cudaGetErrorString(s));
    return nullptr;
  }
  return &kCudaOps;
}
