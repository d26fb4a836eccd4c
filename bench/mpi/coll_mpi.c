/*
 * The Open MPI counterpart of `gpurun-bench COLLECTIVE`: the same sweep, the
 * same iteration counts (-n, or about 32 MiB of data per size, 20..1000, and
 * a tenth of that as warm-up), the same timing (a barrier, the warm-up, a
 * barrier, then the per-iteration average of the timed loop on each rank; the
 * slowest rank's is reported) and the same nccl-tests columns, float sum,
 * root 0, so bench/coll_compare.sh can put the two side by side. Data is not
 * checked (#wrong is N/A).
 *   mpirun -np 2 coll_mpi allreduce|bcast|reduce|allgather|reducescatter|alltoall|gather|scatter|barrier
 *          [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]
 * In place uses MPI_IN_PLACE; MPI_Bcast has one buffer, so both columns time it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size_arg.h"

enum coll { ALLREDUCE, BCAST, REDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, GATHER, SCATTER, BARRIER, NCOLL };
static const char* const kNames[NCOLL] = {"allreduce", "bcast",  "reduce",  "allgather", "reducescatter",
                                          "alltoall",  "gather", "scatter", "barrier"};

struct args {
  enum coll coll;
  size_t min, max, factor;
  size_t iters, warmup;
};

static int iters_for(const struct args* a, size_t bytes) {
  if (a->iters > 0) return (int)a->iters;
  size_t n = ((size_t)32 << 20) / (bytes ? bytes : 1);
  return n < 20 ? 20 : n > 1000 ? 1000 : (int)n;
}

static int warmup_for(const struct args* a, size_t bytes) {
  if (a->warmup > 0) return (int)a->warmup;
  int w = iters_for(a, bytes) / 10;
  return w < 2 ? 2 : w > 100 ? 100 : w;
}

static int parse(int argc, char** argv, struct args* a) {
  if (argc < 2) return 0;
  a->coll = NCOLL;
  for (int c = 0; c < NCOLL; ++c) {
    if (strcmp(argv[1], kNames[c]) == 0) a->coll = (enum coll)c;
  }
  if (a->coll == NCOLL) return 0;
  a->min = 8, a->max = (size_t)16 << 20, a->factor = 2, a->iters = 0, a->warmup = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const char* f = argv[i];
    const char* v = argv[i + 1];
    size_t* target = !strcmp(f, "-b")   ? &a->min
                     : !strcmp(f, "-e") ? &a->max
                     : !strcmp(f, "-f") ? &a->factor
                     : !strcmp(f, "-n") ? &a->iters
                     : !strcmp(f, "-w") ? &a->warmup
                                        : NULL;
    if (target == NULL || !parse_size_arg(v, target)) return 0;
  }
  if (a->iters > 1000000000 || a->warmup > 1000000000) return 0;
  return a->factor >= 2;
}

/* Element counts as gpurun-bench's layouts: per rank for the block collectives. */
static size_t count_for(enum coll c, size_t bytes, int n) {
  const size_t total = bytes / sizeof(float);
  switch (c) {
    case ALLREDUCE:
    case BCAST:
    case REDUCE: return total;
    case BARRIER: return 0;
    default: return total / (size_t)n;
  }
}

static size_t size_for(enum coll c, size_t count, int n) {
  switch (c) {
    case ALLREDUCE:
    case BCAST:
    case REDUCE: return count * sizeof(float);
    case BARRIER: return 0;
    default: return count * (size_t)n * sizeof(float);
  }
}

static double bus_factor(enum coll c, int n) {
  switch (c) {
    case ALLREDUCE: return 2.0 * (n - 1) / n;
    case BCAST:
    case REDUCE: return 1.0;
    case BARRIER: return 0.0;
    default: return (double)(n - 1) / n;
  }
}

static void call(enum coll c, int in_place, float* s, float* r, int count, int rank, int n) {
  const MPI_Comm w = MPI_COMM_WORLD;
  const int root = 0;
  void* ip_send = in_place ? MPI_IN_PLACE : s;
  switch (c) {
    case ALLREDUCE: MPI_Allreduce(ip_send, r, count, MPI_FLOAT, MPI_SUM, w); break;
    case BCAST: MPI_Bcast(r, count, MPI_FLOAT, root, w); break;
    case REDUCE:
      MPI_Reduce(in_place ? (rank == root ? MPI_IN_PLACE : r) : s, r, count, MPI_FLOAT, MPI_SUM, root, w);
      break;
    case ALLGATHER:
      if (in_place)
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_FLOAT, w);
      else
        MPI_Allgather(s, count, MPI_FLOAT, r, count, MPI_FLOAT, w);
      break;
    case REDUCESCATTER:
      if (in_place)
        MPI_Reduce_scatter_block(MPI_IN_PLACE, r, count, MPI_FLOAT, MPI_SUM, w);
      else
        MPI_Reduce_scatter_block(s, r, count, MPI_FLOAT, MPI_SUM, w);
      break;
    case ALLTOALL:
      if (in_place)
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_FLOAT, w);
      else
        MPI_Alltoall(s, count, MPI_FLOAT, r, count, MPI_FLOAT, w);
      break;
    case GATHER:
      if (in_place && rank == root)
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, count, MPI_FLOAT, root, w);
      else
        MPI_Gather(s, count, MPI_FLOAT, r, count, MPI_FLOAT, root, w);
      break;
    case SCATTER:
      if (in_place && rank == root)
        MPI_Scatter(r, count, MPI_FLOAT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, w);
      else
        MPI_Scatter(s, count, MPI_FLOAT, r, count, MPI_FLOAT, root, w);
      break;
    case BARRIER: MPI_Barrier(w); break;
    default: break;
  }
  (void)n;
}

/* The slowest rank's per-iteration average, in microseconds (valid at rank 0). */
static double time_loop(const struct args* a, int in_place, float* s, float* r, size_t count, size_t bytes, int rank,
                        int n) {
  const int iters = iters_for(a, bytes), warm = warmup_for(a, bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warm; ++i) call(a->coll, in_place, s, r, (int)count, rank, n);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < iters; ++i) call(a->coll, in_place, s, r, (int)count, rank, n);
  double mine = (MPI_Wtime() - start) * 1e6 / iters, slowest = 0;
  MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return slowest;
}

static void print_measure(double us, size_t bytes, double factor) {
  const double algbw = us > 0 ? (double)bytes / us / 1e3 : 0;
  printf("  %7.2f  %6.2f  %6.2f  %6s", us, algbw, algbw * factor, "N/A");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  struct args a;
  if (!parse(argc, argv, &a)) {
    if (rank == 0) fprintf(stderr, "usage: coll_mpi COLLECTIVE [-b MIN] [-e MAX] [-f FACTOR] [-n ITERS] [-w WARMUP]\n");
    MPI_Finalize();
    return 2;
  }
  const size_t cap = a.max > 0 ? a.max : 1;
  float *s = NULL, *r = NULL;
  if (posix_memalign((void**)&s, 4096, cap) != 0 || posix_memalign((void**)&r, 4096, cap) != 0) {
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(s, 0, cap);
  memset(r, 0, cap);
  if (rank == 0) {
    printf("# coll_mpi %s: %d ranks, Open MPI, host buffers, float sum, root 0\n#\n", kNames[a.coll], n);
    printf("#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size", "count", "type", "redop",
           "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  }
  const int rooted = a.coll == BCAST || a.coll == REDUCE || a.coll == GATHER || a.coll == SCATTER;
  const int reduces = a.coll == ALLREDUCE || a.coll == REDUCE || a.coll == REDUCESCATTER;
  for (size_t bytes = a.coll == BARRIER ? 0 : a.min; bytes <= a.max; bytes = bytes ? bytes * a.factor : 1) {
    const size_t count = count_for(a.coll, bytes, n);
    const size_t size = size_for(a.coll, count, n);
    const double oop = time_loop(&a, 0, s, r, count, size, rank, n);
    const double ip = a.coll == BARRIER ? 0 : time_loop(&a, 1, s, r, count, size, rank, n);
    if (rank == 0) {
      printf("%12zu  %12zu  %8s  %6s  %6d", size, count, a.coll == BARRIER ? "none" : "float", reduces ? "sum" : "none",
             rooted ? 0 : -1);
      print_measure(oop, size, bus_factor(a.coll, n));
      if (a.coll == BARRIER)
        printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
      else
        print_measure(ip, size, bus_factor(a.coll, n));
      printf("\n");
      fflush(stdout);
    }
    if (a.coll == BARRIER) break;
  }
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
