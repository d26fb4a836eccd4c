/*
 * Init and communicators: MPI_Init_thread, MPI_Initialized/Finalized, world
 * and self, processor name, versions, MPI_Wtime/Wtick, MPI_Comm_split (with
 * keys reversing the order and with MPI_UNDEFINED), MPI_Comm_dup (a context
 * of its own), MPI_Comm_compare (IDENT, CONGRUENT, SIMILAR, UNEQUAL),
 * MPI_Comm_free.
 */
#include "mpitest.h"

static const char* compare_name(int result) {
  if (result == MPI_IDENT) return "MPI_IDENT";
  if (result == MPI_CONGRUENT) return "MPI_CONGRUENT";
  if (result == MPI_SIMILAR) return "MPI_SIMILAR";
  if (result == MPI_UNEQUAL) return "MPI_UNEQUAL";
  return "?";
}

static void world_and_self(void) {
  int flag = 0, rank = -1, size = 0;
  OK(MPI_Initialized(&flag));
  CHECK(flag == 1);
  OK(MPI_Finalized(&flag));
  CHECK(flag == 0);
  say("world: rank %d of %d", mt_rank, mt_size);
  OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
  OK(MPI_Comm_size(MPI_COMM_SELF, &size));
  say("self: rank %d of %d", rank, size);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  OK(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  OK(MPI_Get_library_version(lib, &len));
  CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING);
  int version = 0, subversion = -1;
  OK(MPI_Get_version(&version, &subversion));
  CHECK(version >= 3 && subversion >= 0 && version == MPI_VERSION && subversion == MPI_SUBVERSION);
  const double t0 = MPI_Wtime(), t1 = MPI_Wtime();
  CHECK(t1 >= t0);
  CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1);
}

/* color = rank % 2, key = -rank: each half in reverse order. */
static void split(void) {
  MPI_Comm half;
  if (!OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &half))) return;
  int rank = -1, size = 0, sum = 0;
  OK(MPI_Comm_rank(half, &rank));
  OK(MPI_Comm_size(half, &size));
  const int members = (mt_size - mt_rank % 2 + 1) / 2;
  CHECK(size == members);
  CHECK(rank == (members - 1) - mt_rank / 2);
  OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, half));
  say("split color %d: rank %d of %d, sum of world ranks %d", mt_rank % 2, rank, size, sum);
  int result = -1;
  OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &result));
  say("compare(half, world) = %s", compare_name(result));
  OK(MPI_Comm_free(&half));
  CHECK(half == MPI_COMM_NULL);

  MPI_Comm none;
  if (OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? MPI_UNDEFINED : 1, 0, &none))) {
    say("split with rank 0 undefined: %s", none == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (none != MPI_COMM_NULL) OK(MPI_Comm_free(&none));
  }
}

static void dup_and_compare(void) {
  MPI_Comm dup, reversed;
  int result = -1;
  if (!OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup))) return;
  OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  say("compare(world, world) = %s", compare_name(result));
  OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  say("compare(world, dup) = %s", compare_name(result));
  OK(MPI_Comm_split(MPI_COMM_WORLD, 0, mt_size - mt_rank, &reversed));
  OK(MPI_Comm_compare(MPI_COMM_WORLD, reversed, &result));
  say("compare(world, reversed) = %s", compare_name(result));
  OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result));
  say("compare(self, world) = %s", compare_name(result));

  /* The same tag and peer on two communicators: each receive gets its own communicator's message. */
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  int on_world = 100 + mt_rank, on_dup = 200 + mt_rank, got_world = -1, got_dup = -1;
  MPI_Request req[2];
  OK(MPI_Isend(&on_dup, 1, MPI_INT, right, 5, dup, &req[0]));
  OK(MPI_Isend(&on_world, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &req[1]));
  OK(MPI_Recv(&got_world, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Recv(&got_dup, 1, MPI_INT, left, 5, dup, MPI_STATUS_IGNORE));
  OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  CHECK(got_world == 100 + left && got_dup == 200 + left);
  say("dup isolation: world got %d, dup got %d", got_world, got_dup);
  int rank = -1;
  OK(MPI_Comm_rank(reversed, &rank));
  CHECK(rank == mt_size - 1 - mt_rank);
  OK(MPI_Comm_free(&reversed));
  OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
}

int main(int argc, char** argv) {
  int provided = -1;
  mt_name = "init_comm";
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
  CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
        MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);
  CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED ||
        provided == MPI_THREAD_MULTIPLE);
  world_and_self();
  split();
  dup_and_compare();
  int rc = mt_finish();
  MPI_Finalize();
  int flag = 0;
  MPI_Finalized(&flag);
  if (mt_rank == 0) printf("finalized: %d\n", flag);
  return rc || !flag;
}
