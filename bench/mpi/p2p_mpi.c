/*
 * The Open MPI counterpart of `gpurun-bench latency|bw`: the same loops, the
 * same sizes and iteration counts, the same output format, so that
 * bench/p2p_compare.sh can put the two side by side.
 *   mpirun -np 2 p2p_mpi latency|bw MIN MAX
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "size_arg.h"

static int iters_for(size_t bytes, int bw) { return bw ? (bytes > 8192 ? 20 : 100) : (bytes > 8192 ? 1000 : 10000); }
static int warm_for(size_t bytes, int bw) { return bw ? (bytes > 8192 ? 2 : 10) : (bytes > 8192 ? 10 : 100); }

static void latency(int rank, char* buf, size_t min, size_t max) {
  if (rank == 0) printf("# mpi latency\n# %-10s %14s\n", "Size", "Latency (us)");
  for (size_t bytes = min; bytes <= max; bytes = bytes ? bytes * 2 : 1) {
    const int iters = iters_for(bytes, 0), warm = warm_for(bytes, 0);
    double start = 0;
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) start = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else if (rank == 1) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
    if (rank == 0) printf("  %-10zu %14.2f\n", bytes, (MPI_Wtime() - start) * 1e6 / (2.0 * iters));
    fflush(stdout);
  }
}

static void bandwidth(int rank, char* buf, size_t min, size_t max) {
  enum { kWindow = 64 };
  MPI_Request reqs[kWindow];
  if (rank == 0) printf("# mpi bw\n# %-10s %16s\n", "Size", "Bandwidth (MB/s)");
  for (size_t bytes = min ? min : 1; bytes <= max; bytes *= 2) {
    const int iters = iters_for(bytes, 1), warm = warm_for(bytes, 1);
    double start = 0;
    for (int i = 0; i < iters + warm; ++i) {
      if (i == warm) start = MPI_Wtime();
      for (int k = 0; k < kWindow && rank < 2; ++k) {
        if (rank == 0)
          MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, 100, MPI_COMM_WORLD, &reqs[k]);
        else
          MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 100, MPI_COMM_WORLD, &reqs[k]);
      }
      if (rank < 2) MPI_Waitall(kWindow, reqs, MPI_STATUSES_IGNORE);
      if (rank == 0) MPI_Recv(NULL, 0, MPI_BYTE, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank == 1) MPI_Send(NULL, 0, MPI_BYTE, 0, 101, MPI_COMM_WORLD);
    }
    const double us = (MPI_Wtime() - start) * 1e6;
    if (rank == 0) printf("  %-10zu %16.2f\n", bytes, bytes * (double)kWindow * iters / us);
    fflush(stdout);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int bw = argc > 1 && strcmp(argv[1], "bw") == 0;
  size_t min = 0, max = 4u << 20;
  if (argc < 2 || argc > 4 || (!bw && strcmp(argv[1], "latency") != 0) ||
      (argc > 2 && !parse_size_arg(argv[2], &min)) || (argc > 3 && !parse_size_arg(argv[3], &max)) || min > max) {
    if (rank == 0) fprintf(stderr, "usage: p2p_mpi latency|bw [MIN [MAX]] (bytes, K/M/G suffixes; MIN <= MAX)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buf = NULL;
  if (posix_memalign((void**)&buf, 4096, max ? max : 1) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(buf, 1, max ? max : 1);
  if (bw)
    bandwidth(rank, buf, min, max);
  else
    latency(rank, buf, min, max);
  free(buf);
  MPI_Finalize();
  return 0;
}
