/*
 * The Open MPI counterpart of examples/hello for bench/launch.sh: init, learn
 * rank, size and host, all-gather every rank's pid (what gpurun's peer
 * exchange does at grInit), print one line, finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, len = 0;
  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Get_processor_name(host, &len);
  int pid = (int)getpid();
  int* pids = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
  printf("hello from rank %d of %d on %s (pid %d)\n", rank, size, host, pids[rank]);
  free(pids);
  MPI_Finalize();
  return 0;
}
