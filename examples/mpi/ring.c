/*
 * ring (plain MPI): a token goes around the ring of ranks; each rank adds its
 * rank to it. Rank 0 starts it at 0 and checks that it comes back as
 * 0 + 1 + ... + (n-1), LAPS times (argument, default 3); exit status 1 when
 * it does not.
 *
 *   gpurun-cc examples/mpi/ring.c -o ring && gpurun -n 4 ./ring 5
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int laps = argc > 1 ? atoi(argv[1]) : 3;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const long long expected = (long long)size * (size - 1) / 2;
  int failed = 0;
  for (int lap = 0; lap < laps; ++lap) {
    long long token = 0;
    if (rank == 0) {
      if (size > 1) {
        MPI_Send(&token, 1, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      if (token != expected) {
        fprintf(stderr, "ring: lap %d: token came back as %lld, expected %lld\n", lap, token, expected);
        failed = 1;
      }
    } else {
      MPI_Recv(&token, 1, MPI_LONG_LONG, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      token += rank;
      MPI_Send(&token, 1, MPI_LONG_LONG, right, lap, MPI_COMM_WORLD);
    }
  }
  if (rank == 0 && !failed)
    printf("ring: %d laps around %d ranks, token = %lld each time (checked)\n", laps, size, expected);
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
