// gtest main for the MPI layer's unit tests: MPI_Init once for the process
// (a singleton job), MPI_ERRORS_RETURN on MPI_COMM_WORLD so failing calls
// return their class, MPI_Finalize at the end.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
