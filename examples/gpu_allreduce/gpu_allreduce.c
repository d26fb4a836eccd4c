/*
 * gpu_allreduce: grAllreduce on GPU buffers. Each rank picks a GPU (its
 * local rank modulo the visible GPUs), fills a device vector, and sums it
 * with every rank twice: with GR_STREAM_HOST (MPI semantics: done on return)
 * and stream-ordered on its own CUDA stream (returns at once, like NCCL; the
 * program synchronises the stream). Every element of both results is checked
 * on the host against its closed form. Then it times `iters` stream-ordered
 * calls of the same size and prints the bus bandwidth (nccl-tests' busbw:
 * algbw * 2(n-1)/n), and the time per call when the same calls are
 * captured into a CUDA graph and replayed (checked too).
 *
 * Rank r's element i is (r + 1) * (i % 100 + 1), so the float sum is exact.
 *
 *   gpurun -n 2 build/bin/gpu_allreduce [COUNT [ITERS]]   (default 1048576 floats, 20 iterations)
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gpurun/gpurun.h"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    if ((call) != grSuccess) {                                                           \
      fprintf(stderr, "gpu_allreduce: %s failed: %s\n", #call, grGetLastErrorMessage()); \
      grAbort(grCommWorld(), 2);                                                         \
    }                                                                                    \
  } while (0)

#define CUDA_CHECK(call)                                                                  \
  do {                                                                                    \
    cudaError_t err_ = (call);                                                            \
    if (err_ != cudaSuccess) {                                                            \
      fprintf(stderr, "gpu_allreduce: %s failed: %s\n", #call, cudaGetErrorString(err_)); \
      grAbort(grCommWorld(), 3);                                                          \
    }                                                                                     \
  } while (0)

static float expected(int size, size_t i) { return (float)((int)(i % 100 + 1) * size * (size + 1) / 2); }

static size_t count_wrong(const float* v, size_t count, int rank, int size, const char* what) {
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    if (v[i] == expected(size, i)) continue;
    if (wrong++ == 0)
      fprintf(stderr, "rank %d: %s: element %zu is %g, expected %g\n", rank, what, i, v[i], expected(size, i));
  }
  return wrong;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  CHECK(grInit(&argc, &argv));
  int rank = 0, size = 1, ngpus = 0;
  CHECK(grCommRank(grCommWorld(), &rank));
  CHECK(grCommSize(grCommWorld(), &size));
  const size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1048576;
  const int iters = argc > 2 ? atoi(argv[2]) : 20;
  const char* local = getenv("GPURUN_LOCAL_RANK");
  CUDA_CHECK(cudaGetDeviceCount(&ngpus));
  CUDA_CHECK(cudaSetDevice((local != NULL ? atoi(local) : rank) % ngpus));

  float* host = malloc(count * sizeof(float));
  float *in = NULL, *out = NULL;
  CUDA_CHECK(cudaMalloc((void**)&in, count * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void**)&out, count * sizeof(float)));
  for (size_t i = 0; i < count; ++i) host[i] = (float)((rank + 1) * (int)(i % 100 + 1));
  CUDA_CHECK(cudaMemcpy(in, host, count * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  size_t wrong = 0;
  CUDA_CHECK(cudaMemset(out, 0xff, count * sizeof(float)));
  CHECK(grAllreduce(in, out, count, grFloat32, grSum, grCommWorld(), GR_STREAM_HOST));
  CUDA_CHECK(cudaMemcpy(host, out, count * sizeof(float), cudaMemcpyDeviceToHost));
  wrong += count_wrong(host, count, rank, size, "null stream");
  CUDA_CHECK(cudaMemset(out, 0xff, count * sizeof(float)));
  CHECK(grAllreduce(in, out, count, grFloat32, grSum, grCommWorld(), (grStream_t)stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaMemcpy(host, out, count * sizeof(float), cudaMemcpyDeviceToHost));
  wrong += count_wrong(host, count, rank, size, "stream-ordered");

  CHECK(grBarrier(grCommWorld(), GR_STREAM_HOST));
  const double t0 = now_s();
  for (int i = 0; i < iters; ++i)
    CHECK(grAllreduce(in, out, count, grFloat32, grSum, grCommWorld(), (grStream_t)stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const double us = (now_s() - t0) * 1e6 / iters;
  const double algbw = (double)(count * sizeof(float)) / us / 1e3;

  /* The same calls captured into a CUDA graph and replayed: stream-ordered
   * calls make no synchronous CUDA call, so they can be captured. */
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaMemset(out, 0xff, count * sizeof(float)));
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < iters; ++i)
    CHECK(grAllreduce(in, out, count, grFloat32, grSum, grCommWorld(), (grStream_t)stream));
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(grBarrier(grCommWorld(), GR_STREAM_HOST));
  const double g0 = now_s();
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const double graph_us = (now_s() - g0) * 1e6 / iters;
  CUDA_CHECK(cudaMemcpy(host, out, count * sizeof(float), cudaMemcpyDeviceToHost));
  wrong += count_wrong(host, count, rank, size, "CUDA graph");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);

  unsigned long long total = wrong;
  unsigned long long sum = 0;
  CHECK(grAllreduce(&total, &sum, 1, grUint64, grSum, grCommWorld(), GR_STREAM_HOST));
  if (rank == 0) {
    printf(
        "gpu_allreduce: %d ranks, %zu floats: %llu wrong; %.2f us per call, busbw %.2f GB/s; %.2f us per call "
        "replayed from a CUDA graph\n",
        size, count, sum, us, algbw * 2.0 * (size - 1) / size, graph_us);
  }
  cudaFree(in);
  cudaFree(out);
  cudaStreamDestroy(stream);
  free(host);
  CHECK(grFinalize());
  return sum == 0 ? 0 : 1;
}
