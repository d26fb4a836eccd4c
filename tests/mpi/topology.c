/*
 * Cartesian topologies: MPI_Dims_create (free and constrained dimensions),
 * MPI_Cart_create (a 2-D grid over every rank, periodic in its second
 * dimension, and a 1-D line that leaves the last rank out), MPI_Cart_coords,
 * MPI_Cart_rank (periodic wrap), MPI_Cart_shift (MPI_PROC_NULL at an open
 * edge), MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_sub, MPI_Topo_test.
 */
#include "mpitest.h"

/* A neighbour's rank as text, MPI_PROC_NULL by name (its value differs between libraries); slot: 0..3. */
static const char* peer(int rank, int slot) {
  static char text[4][16];
  if (rank == MPI_PROC_NULL) return "MPI_PROC_NULL";
  snprintf(text[slot], sizeof text[slot], "%d", rank);
  return text[slot];
}

static void dims_create(void) {
  const struct {
    int nnodes, ndims, dims[4];
  } cases[] = {{6, 2, {0, 0}},     {7, 2, {0, 0}},       {12, 3, {0, 0, 0}},     {16, 4, {0, 0, 0, 0}},
               {24, 3, {0, 0, 0}}, {30, 3, {0, 3, 0}},   {8, 2, {0, 4}},         {1, 3, {0, 0, 0}},
               {36, 2, {0, 0}},    {mt_size, 2, {0, 0}}, {mt_size, 3, {0, 0, 0}}};
  if (mt_rank != 0) return;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    int dims[4];
    memcpy(dims, cases[c].dims, sizeof dims);
    OK(MPI_Dims_create(cases[c].nnodes, cases[c].ndims, dims));
    char label[64];
    snprintf(label, sizeof label, "dims_create(%d, %d)", cases[c].nnodes, cases[c].ndims);
    say_ints(label, dims, cases[c].ndims);
  }
}

static void cart_2d(void) {
  int dims[2] = {0, 0};
  const int periods[2] = {0, 1};
  MPI_Comm cart;
  OK(MPI_Dims_create(mt_size, 2, dims));
  if (!OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart))) return;
  int rank = -1, coords[2] = {-1, -1}, back = -1, ndims = -1, topo = -1;
  OK(MPI_Comm_rank(cart, &rank));
  OK(MPI_Cart_coords(cart, rank, 2, coords));
  OK(MPI_Cart_rank(cart, coords, &back));
  CHECK(rank == mt_rank && back == rank);
  int up, down, left, right;
  OK(MPI_Cart_shift(cart, 0, 1, &up, &down));
  OK(MPI_Cart_shift(cart, 1, -1, &right, &left));
  say("cart %dx%d: rank %d at (%d, %d); dim 0 shift +1: source %s dest %s; dim 1 shift -1: source %s dest %s", dims[0],
      dims[1], rank, coords[0], coords[1], peer(up, 0), peer(down, 1), peer(right, 2), peer(left, 3));
  const int wrapped[2] = {coords[0], coords[1] + dims[1]};
  OK(MPI_Cart_rank(cart, wrapped, &back));
  CHECK(back == rank);
  OK(MPI_Cartdim_get(cart, &ndims));
  int gdims[2], gperiods[2], gcoords[2];
  OK(MPI_Cart_get(cart, 2, gdims, gperiods, gcoords));
  CHECK(ndims == 2 && gdims[0] == dims[0] && gdims[1] == dims[1] && gperiods[0] == 0 && gperiods[1] == 1 &&
        gcoords[0] == coords[0] && gcoords[1] == coords[1]);
  OK(MPI_Topo_test(cart, &topo));
  CHECK(topo == MPI_CART);
  say("cartdim %d, cart_get periods %d %d, topo_test %s", ndims, gperiods[0], gperiods[1],
      topo == MPI_CART ? "MPI_CART" : "?");

  /* Rows: keep dimension 1; the row sum of world ranks. */
  const int remain[2] = {0, 1};
  MPI_Comm row;
  if (OK(MPI_Cart_sub(cart, remain, &row))) {
    int row_rank = -1, row_size = 0, sum = 0;
    OK(MPI_Comm_rank(row, &row_rank));
    OK(MPI_Comm_size(row, &row_size));
    OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, row));
    say("cart_sub row: rank %d of %d, sum of world ranks %d", row_rank, row_size, sum);
    OK(MPI_Comm_free(&row));
  }
  OK(MPI_Comm_free(&cart));
}

/* A line of size - 1 ranks (1 when alone): the last rank gets MPI_COMM_NULL. */
static void cart_line(void) {
  int n = mt_size > 1 ? mt_size - 1 : 1;
  const int period = 0;
  MPI_Comm line;
  if (!OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &period, 0, &line))) return;
  if (line == MPI_COMM_NULL) {
    say("line of %d: not a member (MPI_COMM_NULL)", n);
    return;
  }
  int prev, next;
  OK(MPI_Cart_shift(line, 0, 1, &prev, &next));
  say("line of %d: source %s, dest %s", n, peer(prev, 0), peer(next, 1));
  OK(MPI_Comm_free(&line));
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "topology");
  dims_create();
  cart_2d();
  cart_line();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
