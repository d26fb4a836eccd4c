/*
 * MPI_ERRORS_ARE_FATAL, the default: a send to a rank that does not exist
 * ends the job with a non-zero status. Prints one line before the bad call;
 * the line after it must never appear. Expected to fail (compare.sh checks
 * that both libraries' jobs exit non-zero with the same output).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, v = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("errors_fatal: sending to rank %d of %d\n", size, size);
    fflush(stdout);
    MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
    printf("errors_fatal: still running after an invalid call under MPI_ERRORS_ARE_FATAL\n");
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
