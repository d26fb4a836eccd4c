/*
 * Reduction operations: every predefined op on the C types it applies to
 * (MPI_CHAR with MPI_SUM accepted, as both major MPIs do), MPI_MAXLOC and
 * MPI_MINLOC on the pair types (ties go to the lower index), user ops from
 * MPI_Op_create (commutative, and non-commutative where rank order matters),
 * MPI_Scan and MPI_Exscan (predefined and user ops, MPI_IN_PLACE).
 */
#include <stdint.h>

#include "mpitest.h"

/* Allreduce of one value per rank for each op on an integer type: rank r gives r + 1 (arithmetic ops), r % 2
 * (logical ops) or 1 << r (bit ops); the results are small enough for every type. */
#define INT_OPS(T, MPI_T)                                                                  \
  do {                                                                                     \
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_LAND,                  \
                          MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};                 \
    const char* names = "sum prod max min land lor lxor band bor bxor";                    \
    char line[512];                                                                        \
    int len = snprintf(line, sizeof line, "%s (%s):", #MPI_T, names);                      \
    for (int k = 0; k < 10; ++k) {                                                         \
      T in = (T)(k >= 7 ? (1 << mt_rank) : k >= 4 ? (mt_rank % 2) : mt_rank + 1), out = 0; \
      OK(MPI_Allreduce(&in, &out, 1, MPI_T, ops[k], MPI_COMM_WORLD));                      \
      len += snprintf(line + len, sizeof line - (size_t)len, " %lld", (long long)out);     \
    }                                                                                      \
    say("%s", line);                                                                       \
  } while (0)

#define FLOAT_OPS(T, MPI_T)                                                         \
  do {                                                                              \
    const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};                     \
    char line[256];                                                                 \
    int len = snprintf(line, sizeof line, "%s (sum prod max min):", #MPI_T);        \
    for (int k = 0; k < 4; ++k) {                                                   \
      T in = (T)(mt_rank + 1) * (mt_rank % 2 ? -1 : 1), out = 0;                    \
      OK(MPI_Allreduce(&in, &out, 1, MPI_T, ops[k], MPI_COMM_WORLD));               \
      len += snprintf(line + len, sizeof line - (size_t)len, " %.1f", (double)out); \
    }                                                                               \
    say("%s", line);                                                                \
  } while (0)

static void predefined(void) {
  INT_OPS(int, MPI_INT);
  INT_OPS(unsigned, MPI_UNSIGNED);
  INT_OPS(long, MPI_LONG);
  INT_OPS(unsigned long, MPI_UNSIGNED_LONG);
  INT_OPS(long long, MPI_LONG_LONG);
  INT_OPS(short, MPI_SHORT);
  INT_OPS(unsigned short, MPI_UNSIGNED_SHORT);
  INT_OPS(unsigned char, MPI_UNSIGNED_CHAR);
  INT_OPS(signed char, MPI_SIGNED_CHAR);
  INT_OPS(int8_t, MPI_INT8_T);
  INT_OPS(uint8_t, MPI_UINT8_T);
  INT_OPS(int16_t, MPI_INT16_T);
  INT_OPS(int32_t, MPI_INT32_T);
  INT_OPS(uint32_t, MPI_UINT32_T);
  INT_OPS(int64_t, MPI_INT64_T);
  INT_OPS(uint64_t, MPI_UINT64_T);
  FLOAT_OPS(float, MPI_FLOAT);
  FLOAT_OPS(double, MPI_DOUBLE);
  char c = (char)(mt_rank + 1), csum = 0;
  OK(MPI_Allreduce(&c, &csum, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
  say("MPI_CHAR sum: %d", csum);
}

static void maxloc_minloc(void) {
  /* Values repeat every 2 ranks, so ties happen and go to the lower rank. */
  struct {
    int v, i;
  } in2 = {(mt_rank % 2) * 10, mt_rank}, max2, min2;
  OK(MPI_Allreduce(&in2, &max2, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
  OK(MPI_Allreduce(&in2, &min2, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
  say("MPI_2INT maxloc (%d at %d), minloc (%d at %d)", max2.v, max2.i, min2.v, min2.i);
  struct {
    double v;
    int i;
  } ind = {(double)(-mt_rank), mt_rank}, dmax, dmin;
  OK(MPI_Allreduce(&ind, &dmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  OK(MPI_Allreduce(&ind, &dmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
  say("MPI_DOUBLE_INT maxloc (%.1f at %d), minloc (%.1f at %d)", dmax.v, dmax.i, dmin.v, dmin.i);
  struct {
    float v;
    int i;
  } inf[2] = {{(float)(mt_rank % 3), mt_rank}, {5.0f, mt_rank}}, fmax[2];
  OK(MPI_Reduce(inf, fmax, 2, MPI_FLOAT_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
  if (mt_rank == 0)
    say("MPI_FLOAT_INT maxloc at root: (%.1f at %d) (%.1f at %d)", fmax[0].v, fmax[0].i, fmax[1].v, fmax[1].i);
  struct {
    long v;
    int i;
  } inl = {100 - (long)(mt_rank % 2), mt_rank}, lmin;
  OK(MPI_Allreduce(&inl, &lmin, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD));
  say("MPI_LONG_INT minloc (%ld at %d)", lmin.v, lmin.i);
}

/* Commutative: elementwise max of absolute values. */
static void absmax(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) {
    const int x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
    b[i] = x > y ? x : y;
  }
}

/* Non-commutative, associative: 2x2 integer matrix product, inout = in * inout. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                      a[2] * b[1] + a[3] * b[3]};
    memcpy(b, r, sizeof r);
  }
}

static void user_ops(void) {
  MPI_Op op_absmax, op_matmul;
  OK(MPI_Op_create(absmax, 1, &op_absmax));
  OK(MPI_Op_create(matmul, 0, &op_matmul));
  int in[3] = {mt_rank % 2 ? -mt_rank : mt_rank, -1, 2 * mt_rank - 3}, out[3];
  OK(MPI_Allreduce(in, out, 3, MPI_INT, op_absmax, MPI_COMM_WORLD));
  say_ints("user absmax (commutative)", out, 3);

  /* Rank r's matrix [[1, r+1], [0, 1]] * ... in rank order; a shear, so the product is order-sensitive. */
  MPI_Datatype mat;
  OK(MPI_Type_contiguous(4, MPI_INT, &mat));
  OK(MPI_Type_commit(&mat));
  int m[4] = {1, mt_rank + 1, mt_rank % 2, 1}, prod[4] = {0};
  OK(MPI_Reduce(m, prod, 1, mat, op_matmul, 0, MPI_COMM_WORLD));
  if (mt_rank == 0) say_ints("user matmul (non-commutative) at root", prod, 4);
  OK(MPI_Scan(m, prod, 1, mat, op_matmul, MPI_COMM_WORLD));
  say_ints("scan matmul", prod, 4);
  for (int i = 0; i < 4; ++i) prod[i] = -7;
  OK(MPI_Exscan(m, prod, 1, mat, op_matmul, MPI_COMM_WORLD));
  if (mt_rank > 0) say_ints("exscan matmul", prod, 4);
  OK(MPI_Type_free(&mat));
  OK(MPI_Op_free(&op_absmax));
  OK(MPI_Op_free(&op_matmul));
  CHECK(op_absmax == MPI_OP_NULL && op_matmul == MPI_OP_NULL);
}

static void scans(void) {
  int v[2] = {mt_rank + 1, 10 * mt_rank}, s[2], e[2] = {-1, -1};
  OK(MPI_Scan(v, s, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(s[0] == (mt_rank + 1) * (mt_rank + 2) / 2);
  say_ints("scan sum", s, 2);
  OK(MPI_Exscan(v, e, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (mt_rank > 0) say_ints("exscan sum", e, 2);
  int p[2] = {mt_rank + 1, mt_rank % 3};
  OK(MPI_Scan(MPI_IN_PLACE, p, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  say_ints("scan max in place", p, 2);
  int q[2] = {mt_rank + 1, 2};
  OK(MPI_Exscan(MPI_IN_PLACE, q, 2, MPI_INT, MPI_PROD, MPI_COMM_WORLD));
  if (mt_rank > 0) say_ints("exscan prod in place", q, 2);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "coll_reduce_ops");
  predefined();
  maxloc_minloc();
  user_ops();
  scans();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
