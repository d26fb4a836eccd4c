/*
 * heat2d's field operations, the same set on host memory (heat2d.c) and on CUDA
 * device memory (heat2d_cuda.cu). A local block is (ny + 2) rows of (nx + 2)
 * doubles, row-major: the nx x ny interior plus one ghost cell on each side.
 * Columns travel packed: cols[0, ny) is the west interior (or ghost) column,
 * cols[ny, 2 ny) the east one.
 */
#ifndef GPURUN_EXAMPLES_MPI_HEAT2D_H_
#define GPURUN_EXAMPLES_MPI_HEAT2D_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct heat_ops {
  const char* name;
  /* n zeroed doubles, or NULL. */
  double* (*alloc)(size_t n);
  void (*release)(double* p);
  /* Copies n doubles from host memory into the ops' memory, and back. */
  void (*put)(double* dst, const double* src, size_t n);
  void (*get)(double* dst, const double* src, size_t n);
  /* One Jacobi step of the interior, v = average of u's four neighbours;
   * *res (the ops' memory) = max |v - u| over the interior. Complete on return. */
  void (*step)(const double* u, double* v, int nx, int ny, double* res);
  /* Interior columns of u into cols; cols into u's ghost columns (only the sides that have a neighbour). */
  void (*pack)(const double* u, int nx, int ny, double* cols);
  void (*unpack)(double* u, int nx, int ny, const double* cols, int west, int east);
};

/* The CUDA ops (heat2d_cuda.cu): on success selects GPU (local index modulo the
 * GPUs visible) and returns the ops; otherwise NULL with the reason in err. */
const struct heat_ops* heat_cuda_ops(int local_index, char* err, size_t err_len);

#ifdef __cplusplus
}
#endif

#endif  // GPURUN_EXAMPLES_MPI_HEAT2D_H_
