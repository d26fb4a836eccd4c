/*
 * MPI_Abort: the last rank aborts the job with error code 3 while the others
 * wait in a receive that never completes. The job must end (not hang) with
 * status 3 (Open MPI and gpurun both return the code; compare.sh checks it).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    printf("abort: rank %d aborts with code 3\n", rank);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 3);
  } else {
    MPI_Recv(&v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  printf("abort: rank %d still running\n", rank);
  MPI_Finalize();
  return 0;
}
