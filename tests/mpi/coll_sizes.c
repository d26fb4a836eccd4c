/*
 * Collectives over a sweep of counts (1 to 300001 ints, odd sizes included)
 * so that an implementation's per-size choices (algorithms, protocols, eager
 * or rendezvous) all get used: MPI_Allreduce (out of place and in place),
 * MPI_Reduce, MPI_Bcast, MPI_Allgather and MPI_Reduce_scatter_block, each
 * checked element by element against the closed-form result; one line per
 * count with the number of wrong elements per call.
 */
#include "mpitest.h"

static int wrong(const int* v, int n, int (*want)(int i)) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += v[i] != want(i);
  return bad;
}

/* Rank r's element i is i % 997 + r; sums over n ranks: n (i % 997) + n (n - 1) / 2. */
static int sum_of(int i) { return mt_size * (i % 997) + mt_size * (mt_size - 1) / 2; }
static int root_value(int i) { return (i * 7) % 1009; }
static int block_value(int i) { return i % 997 + i / 997; }

static void one_count(int count, int* a, int* b) {
  int bad[6];
  for (int i = 0; i < count; ++i) a[i] = i % 997 + mt_rank;
  OK(MPI_Allreduce(a, b, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  bad[0] = wrong(b, count, sum_of);
  OK(MPI_Allreduce(MPI_IN_PLACE, a, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  bad[1] = wrong(a, count, sum_of);
  for (int i = 0; i < count; ++i) a[i] = i % 997 + mt_rank, b[i] = -1;
  const int root = count % mt_size;
  OK(MPI_Reduce(a, b, count, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  bad[2] = mt_rank == root ? wrong(b, count, sum_of) : 0;
  for (int i = 0; i < count; ++i) b[i] = mt_rank == root ? root_value(i) : -1;
  OK(MPI_Bcast(b, count, MPI_INT, root, MPI_COMM_WORLD));
  bad[3] = wrong(b, count, root_value);
  /* Allgather and reduce-scatter with count / size per rank (at least 1). */
  const int block = count / mt_size > 0 ? count / mt_size : 1;
  for (int i = 0; i < block; ++i) a[i] = block_value(mt_rank * block + i);
  OK(MPI_Allgather(a, block, MPI_INT, b, block, MPI_INT, MPI_COMM_WORLD));
  bad[4] = wrong(b, block * mt_size, block_value);
  for (int i = 0; i < block * mt_size; ++i) a[i] = i % 997 + mt_rank;
  OK(MPI_Reduce_scatter_block(a, b, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  bad[5] = 0;
  for (int i = 0; i < block; ++i) bad[5] += b[i] != sum_of(mt_rank * block + i);
  for (int k = 0; k < 6; ++k) CHECK(bad[k] == 0);
  char label[96];
  snprintf(label, sizeof label,
           "count %d: wrong in allreduce, in place, reduce, bcast, allgather, reduce_scatter_block", count);
  say_ints(label, bad, 6);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "coll_sizes");
  const int counts[] = {1, 2, 3, 17, 255, 1000, 4097, 16384, 65537, 300001};
  const int max = 300001 + 64 * 4;
  int* a = malloc(sizeof(int) * (size_t)max);
  int* b = malloc(sizeof(int) * (size_t)max);
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) one_count(counts[c], a, b);
  free(a);
  free(b);
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
