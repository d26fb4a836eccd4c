/*
 * Collectives on MPI_COMM_WORLD with integer data: MPI_Barrier, MPI_Bcast from
 * every root (and 1 Mi ints), MPI_Reduce/MPI_Allreduce (sum, max, min on
 * int and integer-valued double; 1 Mi ints; MPI_IN_PLACE), MPI_Gather,
 * MPI_Scatter, MPI_Allgather and MPI_Alltoall (each also with MPI_IN_PLACE).
 */
#include "mpitest.h"

static void bcast(void) {
  for (int root = 0; root < mt_size; ++root) {
    int v[5];
    for (int i = 0; i < 5; ++i) v[i] = mt_rank == root ? root * 100 + i : -1;
    OK(MPI_Bcast(v, 5, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < 5; ++i) CHECK(v[i] == root * 100 + i);
    if (mt_rank == 0) say_ints("bcast from root", v, 5);
  }
  const int n = 1 << 20;
  int* big = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) big[i] = mt_rank == mt_size - 1 ? i : -1;
  OK(MPI_Bcast(big, n, MPI_INT, mt_size - 1, MPI_COMM_WORLD));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += big[i] != i;
  CHECK(bad == 0);
  say("bcast of %d ints from the last rank: %d wrong", n, bad);
  free(big);
}

static void reduce(void) {
  const int n = 7;
  int in[7], sum[7], max[7], min[7];
  for (int i = 0; i < n; ++i) in[i] = (mt_rank + 1) * (i + 1) - 3 * mt_rank;
  const int root = mt_size - 1;
  OK(MPI_Reduce(in, sum, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  OK(MPI_Allreduce(in, max, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  OK(MPI_Allreduce(in, min, n, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (mt_rank == root) say_ints("reduce sum at the last rank", sum, n);
  say_ints("allreduce max", max, n);
  say_ints("allreduce min", min, n);

  double d[3] = {mt_rank, -2.0 * mt_rank, 0.5 * (mt_rank + 1)}, dsum[3];
  OK(MPI_Allreduce(d, dsum, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  say("allreduce double sum: %.1f %.1f %.1f", dsum[0], dsum[1], dsum[2]);

  int inplace[3] = {mt_rank, 1, mt_rank * mt_rank};
  OK(MPI_Allreduce(MPI_IN_PLACE, inplace, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  say_ints("allreduce in place", inplace, 3);
  int at_root[2] = {mt_rank, 10};
  OK(MPI_Reduce(mt_rank == 0 ? MPI_IN_PLACE : at_root, at_root, 2, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
  if (mt_rank == 0) say_ints("reduce max in place at root", at_root, 2);

  /* 1 Mi ints: element i of rank r is (i % 1000) + r; the sum is n * (i % 1000) + n (n-1) / 2. */
  const int big = 1 << 20;
  int* a = malloc(sizeof(int) * (size_t)big);
  int* b = malloc(sizeof(int) * (size_t)big);
  for (int i = 0; i < big; ++i) a[i] = i % 1000 + mt_rank;
  OK(MPI_Allreduce(a, b, big, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int bad = 0;
  for (int i = 0; i < big; ++i) bad += b[i] != mt_size * (i % 1000) + mt_size * (mt_size - 1) / 2;
  CHECK(bad == 0);
  say("allreduce of %d ints: %d wrong", big, bad);
  free(a);
  free(b);
}

static void gather_scatter(void) {
  int mine[2] = {mt_rank, mt_rank * mt_rank}, all[128], back[2] = {-1, -1};
  const int root = mt_size / 2;
  OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
  if (mt_rank == root) say_ints("gather at the middle rank", all, 2 * mt_size);
  if (mt_rank == root) {
    for (int i = 0; i < 2 * mt_size; ++i) all[i] = 1000 + i;
  }
  OK(MPI_Scatter(all, 2, MPI_INT, back, 2, MPI_INT, root, MPI_COMM_WORLD));
  CHECK(back[0] == 1000 + 2 * mt_rank && back[1] == 1001 + 2 * mt_rank);
  say_ints("scatter from the middle rank", back, 2);

  /* In place at the root: its own block already sits in the receive buffer. */
  for (int i = 0; i < 2 * mt_size; ++i) all[i] = -1;
  if (mt_rank == root) all[2 * root] = 7, all[2 * root + 1] = 8;
  if (mt_rank == root)
    OK(MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD));
  else
    OK(MPI_Gather(mine, 2, MPI_INT, NULL, 2, MPI_INT, root, MPI_COMM_WORLD));
  if (mt_rank == root) say_ints("gather in place", all, 2 * mt_size);
  if (mt_rank == root)
    OK(MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD));
  else
    OK(MPI_Scatter(NULL, 2, MPI_INT, back, 2, MPI_INT, root, MPI_COMM_WORLD));
  say_ints("scatter in place (root keeps its block)", mt_rank == root ? all + 2 * root : back, 2);

  OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
  say_ints("allgather", all, 2 * mt_size);
  for (int i = 0; i < 2 * mt_size; ++i) all[i] = i / 2 == mt_rank ? 50 + mt_rank : -1;
  OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD));
  say_ints("allgather in place", all, 2 * mt_size);

  int to[128], from[128];
  for (int i = 0; i < mt_size; ++i) to[i] = mt_rank * 100 + i;
  OK(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, MPI_COMM_WORLD));
  say_ints("alltoall", from, mt_size);
  OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, to, 1, MPI_INT, MPI_COMM_WORLD));
  CHECK(memcmp(to, from, sizeof(int) * (size_t)mt_size) == 0);
  say_ints("alltoall in place", to, mt_size);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "coll_basic");
  OK(MPI_Barrier(MPI_COMM_WORLD));
  bcast();
  reduce();
  gather_scatter();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
