/*
 * hello (plain MPI): every rank reports its rank, the world size and its host;
 * rank 0 gathers the lines and prints them in rank order, so the output is the
 * same from run to run. Builds unchanged with Open MPI's mpicc and gpurun-cc:
 *
 *   gpurun-cc examples/mpi/hello.c -o hello && gpurun -n 4 ./hello
 *   mpicc examples/mpi/hello.c -o hello && mpirun -n 4 ./hello
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kLine = MPI_MAX_PROCESSOR_NAME + 64 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  char line[kLine];
  snprintf(line, sizeof line, "hello from rank %d of %d on %s", rank, size, host);
  char* all = rank == 0 ? malloc((size_t)size * kLine) : NULL;
  MPI_Gather(line, kLine, MPI_CHAR, all, kLine, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) printf("%s\n", all + (size_t)r * kLine);
    free(all);
  }
  MPI_Finalize();
  return 0;
}
