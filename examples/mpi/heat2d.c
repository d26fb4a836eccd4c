/*
 * heat2d (plain MPI): the 2-D heat equation on a square plate whose top edge
 * is held at 100 and the other edges at 0, explicit steps of the largest stable
 * size (each point becomes the average of its four neighbours: Jacobi), on a
 * Cartesian decomposition of the ranks (MPI_Dims_create, MPI_Cart_create,
 * MPI_Cart_shift). Each step exchanges halos (rows with MPI_Sendrecv, packed
 * columns with MPI_Irecv/MPI_Isend/MPI_Waitall; MPI_PROC_NULL at the plate's
 * edges) and takes the residual max |u_new - u| with MPI_Allreduce(MPI_MAX).
 * Every point is computed the same way whatever the decomposition, so the
 * residuals printed are identical for any number of ranks.
 *
 * --device cuda keeps the field, the halo buffers and the residual in GPU
 * memory and passes device pointers to MPI (a CUDA-aware MPI: gpurun's runs
 * the residual's MPI_Allreduce on the GPU). It needs heat2d_cuda.cu compiled
 * in (HEAT2D_CUDA) and a GPU, and fails saying so otherwise.
 *
 *   heat2d [--device host|cuda] [--size N] [--steps S] [--print P] [--tol T]
 *   host:  gpurun-cc examples/mpi/heat2d.c -o heat2d && gpurun -n 4 ./heat2d
 *   cuda:  nvcc -c examples/mpi/heat2d_cuda.cu -o heat2d_cuda.o
 *          gpurun-cc -DHEAT2D_CUDA examples/mpi/heat2d.c heat2d_cuda.o -L/usr/local/cuda/lib64 -lcudart -lstdc++ -lm \
 *            -o heat2d
 *          gpurun -n 2 ./heat2d --device cuda
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heat2d.h"

/* ---- host ops ---- */

static double* host_alloc(size_t n) { return calloc(n, sizeof(double)); }
static void host_release(double* p) { free(p); }
static void host_copy(double* dst, const double* src, size_t n) { memcpy(dst, src, n * sizeof(double)); }

static void host_step(const double* u, double* v, int nx, int ny, double* res) {
  const int w = nx + 2;
  double m = 0;
  for (int j = 1; j <= ny; ++j) {
    for (int i = 1; i <= nx; ++i) {
      const int k = j * w + i;
      v[k] = 0.25 * ((u[k - w] + u[k + w]) + (u[k - 1] + u[k + 1]));
      const double d = fabs(v[k] - u[k]);
      if (d > m) m = d;
    }
  }
  *res = m;
}

static void host_pack(const double* u, int nx, int ny, double* cols) {
  for (int j = 0; j < ny; ++j) {
    cols[j] = u[(j + 1) * (nx + 2) + 1];
    cols[ny + j] = u[(j + 1) * (nx + 2) + nx];
  }
}

static void host_unpack(double* u, int nx, int ny, const double* cols, int west, int east) {
  for (int j = 0; j < ny; ++j) {
    if (west) u[(j + 1) * (nx + 2)] = cols[j];
    if (east) u[(j + 1) * (nx + 2) + nx + 1] = cols[ny + j];
  }
}

static const struct heat_ops kHostOps = {
    .name = "host",
    .alloc = host_alloc,
    .release = host_release,
    .put = host_copy,
    .get = host_copy,
    .step = host_step,
    .pack = host_pack,
    .unpack = host_unpack,
};

#ifndef HEAT2D_CUDA
const struct heat_ops* heat_cuda_ops(int local_index, char* err, size_t err_len) {
  (void)local_index;
  snprintf(err, err_len, "this heat2d was built without CUDA (build it with heat2d_cuda.cu and -DHEAT2D_CUDA)");
  return NULL;
}
#endif

/* ---- the decomposition and the solver ---- */

struct options {
  int cuda, size, steps, print;
  double tol;
};

static int parse(int argc, char** argv, struct options* o) {
  *o = (struct options){.cuda = 0, .size = 128, .steps = 2000, .print = 500, .tol = 0};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *f = argv[i], *v = argv[i + 1];
    if (!strcmp(f, "--device") && (!strcmp(v, "host") || !strcmp(v, "cuda")))
      o->cuda = !strcmp(v, "cuda");
    else if (!strcmp(f, "--size"))
      o->size = atoi(v);
    else if (!strcmp(f, "--steps"))
      o->steps = atoi(v);
    else if (!strcmp(f, "--print"))
      o->print = atoi(v);
    else if (!strcmp(f, "--tol"))
      o->tol = atof(v);
    else
      return 0;
  }
  return argc % 2 == 1 && o->size > 0 && o->steps >= 0 && o->print > 0;
}

/* The part of n points that coordinate c of d gets: its first index and length. */
static void split(int n, int d, int c, int* first, int* len) {
  *len = n / d + (c < n % d);
  *first = c * (n / d) + (c < n % d ? c : n % d);
}

struct block {
  MPI_Comm cart;
  int dims[2], coords[2];
  int rank;                     /* in cart (MPI_Cart_create may reorder) */
  int north, south, west, east; /* neighbours, MPI_PROC_NULL at the plate's edge */
  int nx, ny;                   /* interior columns and rows */
};

static void decompose(int size, struct block* b) {
  int nranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  b->dims[0] = b->dims[1] = 0;
  MPI_Dims_create(nranks, 2, b->dims);
  const int periods[2] = {0, 0};
  MPI_Cart_create(MPI_COMM_WORLD, 2, b->dims, periods, 1, &b->cart);
  int first = 0;
  MPI_Comm_rank(b->cart, &b->rank);
  MPI_Cart_coords(b->cart, b->rank, 2, b->coords);
  MPI_Cart_shift(b->cart, 0, 1, &b->north, &b->south);
  MPI_Cart_shift(b->cart, 1, 1, &b->west, &b->east);
  split(size, b->dims[0], b->coords[0], &first, &b->ny);
  split(size, b->dims[1], b->coords[1], &first, &b->nx);
}

/* Fills u's ghost cells with the neighbours' edge values (halo exchange). */
static void exchange(const struct heat_ops* ops, const struct block* b, double* u, double* cols_out, double* cols_in) {
  const int w = b->nx + 2;
  /* Rows are contiguous: first interior row north, last south; ghost rows filled from the other side. */
  MPI_Sendrecv(u + w + 1, b->nx, MPI_DOUBLE, b->north, 0, u + (b->ny + 1) * w + 1, b->nx, MPI_DOUBLE, b->south, 0,
               b->cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(u + b->ny * w + 1, b->nx, MPI_DOUBLE, b->south, 1, u + 1, b->nx, MPI_DOUBLE, b->north, 1, b->cart,
               MPI_STATUS_IGNORE);
  /* Columns are strided: packed, then sent nonblocking. */
  MPI_Request req[4];
  ops->pack(u, b->nx, b->ny, cols_out);
  MPI_Irecv(cols_in, b->ny, MPI_DOUBLE, b->west, 2, b->cart, &req[0]);
  MPI_Irecv(cols_in + b->ny, b->ny, MPI_DOUBLE, b->east, 3, b->cart, &req[1]);
  MPI_Isend(cols_out, b->ny, MPI_DOUBLE, b->west, 3, b->cart, &req[2]);
  MPI_Isend(cols_out + b->ny, b->ny, MPI_DOUBLE, b->east, 2, b->cart, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  ops->unpack(u, b->nx, b->ny, cols_in, b->west != MPI_PROC_NULL, b->east != MPI_PROC_NULL);
}

/* The starting field in host memory: 0 inside, the top ghost row at 100 on the plate's top edge. */
static double* initial_field(const struct block* b) {
  double* h = calloc((size_t)(b->nx + 2) * (b->ny + 2), sizeof(double));
  if (h && b->north == MPI_PROC_NULL) {
    for (int i = 1; i <= b->nx; ++i) h[i] = 100.0;
  }
  return h;
}

/* Sum of the interior, gathered to rank 0 (in host memory: the ops copy it out). */
static double total_heat(const struct heat_ops* ops, const struct block* b, const double* u) {
  const size_t n = (size_t)(b->nx + 2) * (b->ny + 2);
  double* h = malloc(n * sizeof(double));
  double mine = 0, all = 0;
  ops->get(h, u, n);
  for (int j = 1; j <= b->ny; ++j) {
    for (int i = 1; i <= b->nx; ++i) mine += h[j * (b->nx + 2) + i];
  }
  free(h);
  MPI_Reduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, 0, b->cart);
  return all;
}

static int solve(const struct heat_ops* ops, const struct options* o, const struct block* b) {
  const size_t n = (size_t)(b->nx + 2) * (b->ny + 2);
  double *u = ops->alloc(n), *v = ops->alloc(n), *cols = ops->alloc(4 * (size_t)b->ny), *res = ops->alloc(2);
  double* h = initial_field(b);
  int ok = u && v && cols && res && h;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, b->cart);
  if (!ok) {
    if (b->rank == 0) fprintf(stderr, "heat2d: out of %s memory\n", ops->name);
    return 1;
  }
  ops->put(u, h, n);
  ops->put(v, h, n); /* v's boundary ghost cells stay fixed too */
  free(h);
  double residual = 0;
  int step = 0;
  while (step < o->steps) {
    exchange(ops, b, u, cols, cols + 2 * b->ny);
    ops->step(u, v, b->nx, b->ny, res);
    /* The residual's allreduce runs on the ops' memory: device buffers with --device cuda. */
    MPI_Allreduce(res, res + 1, 1, MPI_DOUBLE, MPI_MAX, b->cart);
    ops->get(&residual, res + 1, 1);
    double* t = u;
    u = v, v = t;
    ++step;
    if (b->rank == 0 && step % o->print == 0) printf("step %6d  residual %.6e\n", step, residual);
    if (residual <= o->tol) break;
  }
  const double heat = total_heat(ops, b, u);
  if (b->rank == 0) printf("heat2d: %d steps, residual %.6e, total heat %.6f\n", step, residual, heat);
  ops->release(u);
  ops->release(v);
  ops->release(cols);
  ops->release(res);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  struct options o;
  if (!parse(argc, argv, &o)) {
    if (rank == 0) fprintf(stderr, "usage: heat2d [--device host|cuda] [--size N] [--steps S] [--print P] [--tol T]\n");
    MPI_Finalize();
    return 2;
  }
  /* Every rank must get the ops it asked for: never fall back from cuda to host. */
  char err[256] = "";
  const struct heat_ops* ops = o.cuda ? heat_cuda_ops(rank, err, sizeof err) : &kHostOps;
  int ok = ops != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!ok) {
    if (!ops) fprintf(stderr, "heat2d: rank %d: --device cuda: %s\n", rank, err);
    MPI_Finalize();
    return 1;
  }
  struct block b;
  decompose(o.size, &b);
  if (b.rank == 0) {
    printf("heat2d: %d x %d plate on %d x %d ranks, %s buffers, top edge at 100\n", o.size, o.size, b.dims[0],
           b.dims[1], ops->name);
  }
  const int rc = solve(ops, &o, &b);
  MPI_Comm_free(&b.cart);
  MPI_Finalize();
  return rc;
}
