/* mpi_gpu_probe: gpurun's MPI layer on device buffers (cudaMalloc), plain MPI C
 * plus the CUDA runtime API; built with gpurun-cc in CUDA builds and run on a
 * machine with a GPU: gpurun -n 2 mpi_gpu_probe. Checks point-to-point
 * between device buffers, collectives that map onto gpurun's GPU path
 * (allreduce/bcast/allgather/reduce_scatter_block on MPI_FLOAT/MPI_INT), the
 * layer's host paths on device buffers (MPI_SHORT sum, MAXLOC, a vector
 * datatype), a nonblocking allreduce, and MPIX_Allreduce_enqueue on a stream.
 * Each rank prints "mpi gpu ok rank R", or FAIL lines and exits 1. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size, g_failures;

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      printf("FAIL rank %d line %d: %s\n", g_rank, __LINE__, #cond); \
      fflush(stdout);                                                \
      ++g_failures;                                                  \
    }                                                                \
  } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)
#define CUDA(call) CHECK((call) == cudaSuccess)

static void* Dev(size_t bytes) {
  void* p = NULL;
  CUDA(cudaMalloc(&p, bytes));
  return p;
}

static void Up(void* dev, const void* host, size_t bytes) {
  CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
}
static void Down(void* host, const void* dev, size_t bytes) {
  CUDA(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  CHECK(MPIX_Query_cuda_support() == 1);
  const int n = g_size, next = (g_rank + 1) % n, prev = (g_rank + n - 1) % n;
  enum { kCount = 1 << 16 };
  float* hf = malloc(sizeof(float) * kCount * n);
  float* df = Dev(sizeof(float) * kCount * n);
  float* dg = Dev(sizeof(float) * kCount * n);

  /* Point-to-point, device to device, around the ring. */
  for (int i = 0; i < kCount; ++i) hf[i] = g_rank * 1000.0f + i;
  Up(df, hf, sizeof(float) * kCount);
  MPI_Status st;
  OK(MPI_Sendrecv(df, kCount, MPI_FLOAT, next, 1, dg, kCount, MPI_FLOAT, prev, 1, MPI_COMM_WORLD, &st));
  Down(hf, dg, sizeof(float) * kCount);
  CHECK(hf[0] == prev * 1000.0f && hf[kCount - 1] == prev * 1000.0f + kCount - 1);
  int count = 0;
  OK(MPI_Get_count(&st, MPI_FLOAT, &count));
  CHECK(count == kCount);

  /* Allreduce (gpurun's GPU path), in place and out of place. */
  for (int i = 0; i < kCount; ++i) hf[i] = (float)(g_rank + 1);
  Up(df, hf, sizeof(float) * kCount);
  OK(MPI_Allreduce(df, dg, kCount, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
  Down(hf, dg, sizeof(float) * kCount);
  CHECK(hf[0] == n * (n + 1) / 2.0f && hf[kCount - 1] == n * (n + 1) / 2.0f);
  OK(MPI_Allreduce(MPI_IN_PLACE, df, kCount, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD));
  Down(hf, df, sizeof(float) * kCount);
  CHECK(hf[7] == (float)n);

  /* Bcast, Allgather, Reduce_scatter_block on device buffers. */
  int* di = Dev(sizeof(int) * kCount * n);
  int* hi = malloc(sizeof(int) * kCount * n);
  for (int i = 0; i < kCount; ++i) hi[i] = g_rank == 0 ? 3 * i : -1;
  Up(di, hi, sizeof(int) * kCount);
  OK(MPI_Bcast(di, kCount, MPI_INT, 0, MPI_COMM_WORLD));
  Down(hi, di, sizeof(int) * kCount);
  CHECK(hi[5] == 15 && hi[kCount - 1] == 3 * (kCount - 1));
  int* dj = Dev(sizeof(int) * kCount * n);
  for (int i = 0; i < kCount; ++i) hi[i] = g_rank;
  Up(di, hi, sizeof(int) * kCount);
  OK(MPI_Allgather(di, kCount, MPI_INT, dj, kCount, MPI_INT, MPI_COMM_WORLD));
  Down(hi, dj, sizeof(int) * kCount * n);
  for (int r = 0; r < n; ++r) CHECK(hi[r * kCount] == r && hi[r * kCount + kCount - 1] == r);
  for (int i = 0; i < kCount * n; ++i) hi[i] = i % 7;
  Up(di, hi, sizeof(int) * kCount * n);
  OK(MPI_Reduce_scatter_block(di, dj, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  Down(hi, dj, sizeof(int) * kCount);
  CHECK(hi[0] == n * ((g_rank * kCount) % 7) && hi[1] == n * ((g_rank * kCount + 1) % 7));

  /* The layer's host paths on device buffers: MPI_SHORT, MAXLOC, a vector type. */
  short hs[4] = {1, 2, 3, (short)g_rank}, hso[4];
  short* ds = Dev(sizeof(hs));
  short* dso = Dev(sizeof(hs));
  Up(ds, hs, sizeof(hs));
  OK(MPI_Allreduce(ds, dso, 4, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD));
  Down(hso, dso, sizeof(hso));
  CHECK(hso[0] == n && hso[2] == 3 * n && hso[3] == n * (n - 1) / 2);
  struct {
    double v;
    int i;
  } pin = {(double)(g_rank % 2), g_rank}, pout = {0, -1};
  void* dp = Dev(sizeof(pin));
  void* dpo = Dev(sizeof(pin));
  Up(dp, &pin, sizeof(pin));
  OK(MPI_Allreduce(dp, dpo, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  Down(&pout, dpo, sizeof(pout));
  CHECK(pout.v == (n > 1 ? 1.0 : 0.0) && pout.i == (n > 1 ? 1 : 0));
  MPI_Datatype col;
  OK(MPI_Type_vector(4, 1, 4, MPI_INT, &col));
  OK(MPI_Type_commit(&col));
  int mat[16], got[16];
  for (int i = 0; i < 16; ++i) mat[i] = g_rank * 100 + i, got[i] = -1;
  int* dm = Dev(sizeof(mat));
  int* dgot = Dev(sizeof(got));
  Up(dm, mat, sizeof(mat));
  Up(dgot, got, sizeof(got));
  OK(MPI_Sendrecv(dm + 1, 1, col, next, 2, dgot + 2, 1, col, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  Down(got, dgot, sizeof(got));
  for (int i = 0; i < 4; ++i) CHECK(got[2 + 4 * i] == prev * 100 + 1 + 4 * i);
  CHECK(got[0] == -1 && got[3] == -1);
  OK(MPI_Type_free(&col));

  /* Nonblocking allreduce on device buffers, point-to-point meanwhile. */
  MPI_Request r;
  for (int i = 0; i < kCount; ++i) hf[i] = 1.0f;
  Up(df, hf, sizeof(float) * kCount);
  OK(MPI_Iallreduce(df, dg, kCount, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r));
  int token = g_rank, back = -1;
  OK(MPI_Sendrecv(&token, 1, MPI_INT, next, 3, &back, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  Down(hf, dg, sizeof(float) * kCount);
  CHECK(back == prev && hf[kCount / 2] == (float)n);

  /* Stream-ordered allreduce. */
  cudaStream_t stream;
  CUDA(cudaStreamCreate(&stream));
  for (int i = 0; i < kCount; ++i) hf[i] = 2.0f;
  Up(df, hf, sizeof(float) * kCount);
  OK(MPIX_Allreduce_enqueue(df, dg, kCount, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, stream));
  CUDA(cudaStreamSynchronize(stream));
  Down(hf, dg, sizeof(float) * kCount);
  CHECK(hf[3] == 2.0f * n);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPIX_Allreduce_enqueue(ds, dso, 4, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD, stream) == MPI_ERR_OP);
  CUDA(cudaStreamDestroy(stream));

  MPI_Finalize();
  if (g_failures == 0) printf("mpi gpu ok rank %d\n", g_rank);
  return g_failures == 0 ? 0 : 1;
}
