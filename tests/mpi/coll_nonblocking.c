/*
 * Nonblocking collectives: MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce,
 * MPI_Iallgather, MPI_Igather, MPI_Iscatter, MPI_Ialltoall and MPI_Ibarrier,
 * several outstanding at once and completed by MPI_Waitall or MPI_Test loops;
 * and progress: while its MPI_Ibarrier is pending, every rank but 0 sees the
 * barrier incomplete (rank 0 has not entered it), then completes an MPI_Ssend
 * to rank 0, which receives all of them before it enters the barrier.
 */
#include "mpitest.h"

enum { kMax = 64 };

static void overlapped(void) {
  int sum_in[4], sum[4], bc[3], red[2], mine[2] = {mt_rank, -mt_rank}, all[2 * kMax], gath[2 * kMax], sc[2];
  int a2a_out[kMax], a2a_in[kMax];
  for (int i = 0; i < 4; ++i) sum_in[i] = mt_rank * (i + 1);
  for (int i = 0; i < 3; ++i) bc[i] = mt_rank == 0 ? 40 + i : -1;
  for (int i = 0; i < mt_size; ++i) a2a_out[i] = mt_rank * 10 + i;
  for (int i = 0; i < 2 * mt_size; ++i) gath[i] = 300 + i;
  MPI_Request req[8];
  const int root = mt_size - 1;
  OK(MPI_Iallreduce(sum_in, sum, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]));
  OK(MPI_Ibcast(bc, 3, MPI_INT, 0, MPI_COMM_WORLD, &req[1]));
  OK(MPI_Ireduce(mine, red, 2, MPI_INT, MPI_MIN, root, MPI_COMM_WORLD, &req[2]));
  OK(MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD, &req[3]));
  OK(MPI_Igather(mine, 2, MPI_INT, gath, 2, MPI_INT, root, MPI_COMM_WORLD, &req[4]));
  OK(MPI_Ialltoall(a2a_out, 1, MPI_INT, a2a_in, 1, MPI_INT, MPI_COMM_WORLD, &req[5]));
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[6]));
  int scatter_src[2 * kMax];
  for (int i = 0; i < 2 * mt_size; ++i) scatter_src[i] = 600 + i;
  OK(MPI_Iscatter(scatter_src, 2, MPI_INT, sc, 2, MPI_INT, 0, MPI_COMM_WORLD, &req[7]));
  OK(MPI_Waitall(8, req, MPI_STATUSES_IGNORE));
  say_ints("iallreduce sum", sum, 4);
  say_ints("ibcast", bc, 3);
  if (mt_rank == root) say_ints("ireduce min at the last rank", red, 2);
  say_ints("iallgather", all, 2 * mt_size);
  if (mt_rank == root) say_ints("igather at the last rank", gath, 2 * mt_size);
  say_ints("ialltoall", a2a_in, mt_size);
  say_ints("iscatter", sc, 2);
  for (int i = 0; i < 4; ++i) CHECK(sum[i] == (i + 1) * mt_size * (mt_size - 1) / 2);
  CHECK(sc[0] == 600 + 2 * mt_rank && sc[1] == 601 + 2 * mt_rank);
}

/* A large Iallreduce completed by polling with MPI_Test. */
static void polled(void) {
  const int n = 1 << 18;
  int* in = malloc(sizeof(int) * (size_t)n);
  int* out = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) in[i] = i % 100 + mt_rank;
  MPI_Request req;
  int flag = 0, bad = 0;
  OK(MPI_Iallreduce(in, out, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req));
  while (!flag) OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) bad += out[i] != i % 100 + mt_size - 1;
  CHECK(bad == 0 && req == MPI_REQUEST_NULL);
  say("iallreduce of %d ints by MPI_Test: %d wrong", n, bad);
  free(in);
  free(out);
}

static void ibarrier_then_ssend(void) {
  MPI_Request barrier;
  int flag = -1;
  if (mt_rank == 0) {
    int from[kMax] = {0};
    for (int i = 1; i < mt_size; ++i) {
      int v = -1;
      MPI_Status st;
      OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, &st));
      if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < kMax) from[st.MPI_SOURCE] = v;
    }
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &barrier));
    OK(MPI_Wait(&barrier, MPI_STATUS_IGNORE));
    say_ints("ibarrier then ssend: rank 0 received, by source", from + 1, mt_size - 1);
  } else {
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &barrier));
    OK(MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE));
    CHECK(flag == 0);
    const int v = 700 + mt_rank;
    OK(MPI_Ssend(&v, 1, MPI_INT, 0, 90, MPI_COMM_WORLD));
    OK(MPI_Wait(&barrier, MPI_STATUS_IGNORE));
    say("ibarrier then ssend: barrier pending before rank 0 entered: %s; ssend completed", flag == 0 ? "yes" : "no");
  }
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "coll_nonblocking");
  if (mt_size > kMax) {
    if (mt_rank == 0) fprintf(stderr, "coll_nonblocking: at most %d ranks\n", kMax);
    MPI_Finalize();
    return 2;
  }
  overlapped();
  polled();
  ibarrier_then_ssend();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
