/*
 * Errors with MPI_ERRORS_RETURN (set on MPI_COMM_WORLD by mt_init, inherited
 * by MPI_Comm_dup): the class of each invalid call (rank, count, tag,
 * communicator, datatype, op, root, truncation), MPI_Error_class of each class
 * (itself), MPI_Error_string (some text; the text itself differs between
 * libraries and is not printed), and that the communicator still works after.
 * (tests/mpi/errors_fatal.c covers the default, MPI_ERRORS_ARE_FATAL.)
 */
#include "mpitest.h"

/* Records the class of an error the call must return (MPI_SUCCESS is a failure here). */
static void expect_error(int rc, const char* what, int want) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  CHECK(cls == want);
  say("%s: %s", what, mt_class_name(cls));
}

static void invalid_calls(void) {
  int v[4] = {1, 2, 3, 4}, out[4];
  MPI_Comm dup;
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  expect_error(MPI_Send(v, 1, MPI_INT, mt_size, 0, dup), "send to rank size", MPI_ERR_RANK);
  expect_error(MPI_Send(v, 1, MPI_INT, -5, 0, dup), "send to rank -5", MPI_ERR_RANK);
  expect_error(MPI_Send(v, -1, MPI_INT, 0, 0, dup), "send count -1", MPI_ERR_COUNT);
  expect_error(MPI_Send(v, 1, MPI_INT, 0, -3, dup), "send tag -3", MPI_ERR_TAG);
  expect_error(MPI_Send(v, 1, MPI_DATATYPE_NULL, 0, 0, dup), "send MPI_DATATYPE_NULL", MPI_ERR_TYPE);
  expect_error(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), "send on MPI_COMM_NULL", MPI_ERR_COMM);
  expect_error(MPI_Allreduce(v, out, 1, MPI_INT, MPI_OP_NULL, dup), "allreduce MPI_OP_NULL", MPI_ERR_OP);
  expect_error(MPI_Bcast(v, 1, MPI_INT, mt_size, dup), "bcast root size", MPI_ERR_ROOT);

  /* 4 ints into room for 2. */
  MPI_Request req;
  OK(MPI_Isend(v, 4, MPI_INT, mt_rank, 7, dup, &req));
  expect_error(MPI_Recv(out, 2, MPI_INT, mt_rank, 7, dup, MPI_STATUS_IGNORE), "receive 4 ints into 2",
               MPI_ERR_TRUNCATE);
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

  /* Still usable after the errors. */
  int sum = 0;
  OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, dup));
  CHECK(sum == mt_size * (mt_size - 1) / 2);
  say("allreduce after the errors: %d", sum);
  OK(MPI_Comm_free(&dup));
}

static void classes_and_strings(void) {
  const int classes[] = {MPI_SUCCESS,   MPI_ERR_BUFFER,    MPI_ERR_COUNT,   MPI_ERR_TYPE,
                         MPI_ERR_TAG,   MPI_ERR_COMM,      MPI_ERR_RANK,    MPI_ERR_REQUEST,
                         MPI_ERR_ROOT,  MPI_ERR_OP,        MPI_ERR_ARG,     MPI_ERR_TRUNCATE,
                         MPI_ERR_OTHER, MPI_ERR_INTERN,    MPI_ERR_UNKNOWN, MPI_ERR_TOPOLOGY,
                         MPI_ERR_DIMS,  MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_UNSUPPORTED_OPERATION};
  int n = 0, bad = 0;
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i, ++n) {
    int cls = -1, len = -1;
    char text[MPI_MAX_ERROR_STRING];
    OK(MPI_Error_class(classes[i], &cls));
    OK(MPI_Error_string(classes[i], text, &len));
    if (!CHECK(cls == classes[i] && len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(text) == len)) ++bad;
    CHECK(classes[i] <= MPI_ERR_LASTCODE);
  }
  if (mt_rank == 0) say("error classes: %d checked, %d wrong (class of itself, a string, <= MPI_ERR_LASTCODE)", n, bad);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "errors");
  invalid_calls();
  classes_and_strings();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
