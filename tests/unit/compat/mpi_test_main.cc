// gtest main for the MPI layer's unit tests: MPI_Init once for the process
// (a singleton job, GPURUN_TIMEOUT 3 s unless set), MPI_ERRORS_RETURN on MPI_COMM_WORLD so failing calls
// return their class, MPI_Finalize at the end.
#include <gtest/gtest.h>
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // A short GPURUN_TIMEOUT for the tests of waits that can never complete.
  setenv("GPURUN_TIMEOUT", "3", 0);
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
