/*
 * The v-variants and reduce-scatter: MPI_Gatherv, MPI_Scatterv,
 * MPI_Allgatherv, MPI_Alltoallv (rank r contributes r + 1 ints, placed with
 * gaps and out of rank order), MPI_Reduce_scatter (counts 1, 2, ..., n) and
 * MPI_Reduce_scatter_block, both also with MPI_IN_PLACE.
 */
#include "mpitest.h"

enum { kMax = 64 };
static int counts[kMax], displs[kMax], total;

/* Rank r's block: r + 1 ints, placed in reverse rank order with a gap of one between blocks. */
static void layout(void) {
  int at = 0;
  for (int r = mt_size - 1; r >= 0; --r) {
    counts[r] = r + 1;
    displs[r] = at;
    at += counts[r] + 1;
  }
  total = at;
}

static void gatherv_scatterv(void) {
  int mine[kMax], all[kMax * kMax], back[kMax];
  for (int i = 0; i <= mt_rank; ++i) mine[i] = mt_rank * 10 + i;
  for (int i = 0; i < total; ++i) all[i] = -1;
  const int root = mt_size - 1;
  OK(MPI_Gatherv(mine, mt_rank + 1, MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
  if (mt_rank == root) say_ints("gatherv at the last rank (gaps are -1)", all, total);
  for (int i = 0; i < total; ++i) all[i] = i;
  for (int i = 0; i < kMax; ++i) back[i] = -1;
  OK(MPI_Scatterv(all, counts, displs, MPI_INT, back, mt_rank + 1, MPI_INT, root, MPI_COMM_WORLD));
  for (int i = 0; i <= mt_rank; ++i) CHECK(back[i] == displs[mt_rank] + i);
  say_ints("scatterv from the last rank", back, mt_rank + 1);

  for (int i = 0; i < total; ++i) all[i] = -1;
  OK(MPI_Allgatherv(mine, mt_rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
  say_ints("allgatherv", all, total);
  for (int i = 0; i < total; ++i) all[i] = -1;
  for (int i = 0; i <= mt_rank; ++i) all[displs[mt_rank] + i] = 70 + mt_rank;
  OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
  say_ints("allgatherv in place", all, total);
}

/* Rank r sends (d + 1) ints to rank d, each r * 100 + d. */
static void alltoallv(void) {
  int scounts[kMax], sdispls[kMax], rcounts[kMax], rdispls[kMax], out[kMax * kMax], in[kMax * kMax];
  int s = 0, r = 0;
  for (int d = 0; d < mt_size; ++d) {
    scounts[d] = d + 1, sdispls[d] = s, s += d + 1;
    rcounts[d] = mt_rank + 1, rdispls[d] = r, r += mt_rank + 2; /* a gap after each block */
  }
  for (int d = 0; d < mt_size; ++d) {
    for (int i = 0; i < scounts[d]; ++i) out[sdispls[d] + i] = mt_rank * 100 + d;
  }
  for (int i = 0; i < r; ++i) in[i] = -1;
  OK(MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
  for (int src = 0; src < mt_size; ++src) {
    for (int i = 0; i < rcounts[src]; ++i) CHECK(in[rdispls[src] + i] == src * 100 + mt_rank);
  }
  say_ints("alltoallv (gaps are -1)", in, r);
}

static void reduce_scatter(void) {
  int rcounts[kMax], in[kMax * kMax], out[kMax], n = 0;
  for (int r = 0; r < mt_size; ++r) rcounts[r] = r + 1, n += r + 1;
  for (int i = 0; i < n; ++i) in[i] = i + mt_rank;
  OK(MPI_Reduce_scatter(in, out, rcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  say_ints("reduce_scatter sum", out, mt_rank + 1);
  for (int i = 0; i < n; ++i) in[i] = i * (mt_rank + 1);
  OK(MPI_Reduce_scatter(MPI_IN_PLACE, in, rcounts, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  say_ints("reduce_scatter max in place", in, mt_rank + 1);

  const int block = 3;
  for (int i = 0; i < block * mt_size; ++i) in[i] = i - mt_rank;
  OK(MPI_Reduce_scatter_block(in, out, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < block; ++i) {
    const int k = mt_rank * block + i;
    CHECK(out[i] == mt_size * k - mt_size * (mt_size - 1) / 2);
  }
  say_ints("reduce_scatter_block sum", out, block);
  for (int i = 0; i < block * mt_size; ++i) in[i] = i + mt_rank;
  OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, block, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  say_ints("reduce_scatter_block min in place", in, block);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "coll_vector");
  if (mt_size > kMax) {
    if (mt_rank == 0) fprintf(stderr, "coll_vector: at most %d ranks\n", kMax);
    MPI_Finalize();
    return 2;
  }
  layout();
  gatherv_scatterv();
  alltoallv();
  reduce_scatter();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
