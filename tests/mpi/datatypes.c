/*
 * Datatypes: MPI_Type_size (the data bytes, without gaps: 12 for MPI_DOUBLE_INT)
 * and MPI_Type_get_name of predefined types,
 * MPI_Type_contiguous, MPI_Type_vector (a matrix column), MPI_Type_indexed,
 * MPI_Type_create_struct with MPI_Get_address displacements, commit and free,
 * MPI_Get_count in derived units, a derived type in MPI_Bcast and in
 * MPI_Allgather.
 */
#include "mpitest.h"

static void predefined(void) {
  const MPI_Datatype types[] = {MPI_CHAR,     MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE,       MPI_SHORT,
                                MPI_INT,      MPI_LONG,        MPI_LONG_LONG_INT, MPI_UNSIGNED,   MPI_UNSIGNED_LONG,
                                MPI_FLOAT,    MPI_DOUBLE,      MPI_INT8_T,        MPI_UINT16_T,   MPI_INT32_T,
                                MPI_UINT64_T, MPI_C_BOOL,      MPI_2INT,          MPI_DOUBLE_INT, MPI_FLOAT_INT,
                                MPI_LONG_INT, MPI_SHORT_INT};
  char line[1024];
  int len = 0;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
    char name[MPI_MAX_OBJECT_NAME] = "";
    int size = -1, name_len = 0;
    OK(MPI_Type_size(types[i], &size));
    OK(MPI_Type_get_name(types[i], name, &name_len));
    CHECK(name_len == (int)strlen(name));
    len += snprintf(line + len, sizeof line - (size_t)len, "%s%s=%d", i ? " " : "", name, size);
  }
  if (mt_rank == 0) say("sizes: %s", line);
}

/* A 4 x 5 row-major matrix; column 1 as a vector type (4 blocks of 1, stride 5) sent to the right. */
static void vector_and_contiguous(void) {
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  int m[20], col[4] = {-1, -1, -1, -1};
  for (int i = 0; i < 20; ++i) m[i] = mt_rank * 100 + i;
  MPI_Datatype column, triple;
  OK(MPI_Type_vector(4, 1, 5, MPI_INT, &column));
  OK(MPI_Type_commit(&column));
  int size = 0;
  OK(MPI_Type_size(column, &size));
  MPI_Status st;
  OK(MPI_Sendrecv(m + 1, 1, column, right, 1, col, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
  for (int j = 0; j < 4; ++j) CHECK(col[j] == left * 100 + j * 5 + 1);
  say("vector: size %d; column 1 from the left: %d %d %d %d", size, col[0], col[1], col[2], col[3]);

  /* Receive into the vector type: the values land in column 3, the rest untouched. */
  int back[20];
  for (int i = 0; i < 20; ++i) back[i] = -1;
  const int four[4] = {mt_rank, mt_rank + 1, mt_rank + 2, mt_rank + 3};
  OK(MPI_Sendrecv(four, 4, MPI_INT, right, 2, back + 3, 1, column, left, 2, MPI_COMM_WORLD, &st));
  int count = -1;
  OK(MPI_Get_count(&st, column, &count));
  say_ints("vector receive into column 3", back, 20);
  say("get_count in vector units: %d", count);

  OK(MPI_Type_contiguous(3, MPI_INT, &triple));
  OK(MPI_Type_commit(&triple));
  int t[6] = {mt_rank, 1, 2, 3, 4, 5 + mt_rank};
  OK(MPI_Bcast(t, 2, triple, mt_size - 1, MPI_COMM_WORLD));
  say_ints("contiguous(3) bcast from the last rank", t, 6);
  int all[3 * 64];
  const int mine[3] = {mt_rank, 2 * mt_rank, 3 * mt_rank};
  if (mt_size <= 64) {
    OK(MPI_Allgather(mine, 1, triple, all, 1, triple, MPI_COMM_WORLD));
    if (mt_rank == 0) say_ints("contiguous(3) allgather", all, 3 * mt_size);
  }
  OK(MPI_Type_free(&column));
  OK(MPI_Type_free(&triple));
  CHECK(column == MPI_DATATYPE_NULL && triple == MPI_DATATYPE_NULL);
}

static void indexed(void) {
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  const int blocks[3] = {1, 2, 3}, displs[3] = {0, 4, 9};
  MPI_Datatype type;
  OK(MPI_Type_indexed(3, blocks, displs, MPI_INT, &type));
  OK(MPI_Type_commit(&type));
  int size = 0, src[12], dst[12];
  OK(MPI_Type_size(type, &size));
  for (int i = 0; i < 12; ++i) src[i] = mt_rank * 100 + i, dst[i] = -1;
  OK(MPI_Sendrecv(src, 1, type, right, 3, dst, 1, type, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  say("indexed: size %d", size);
  say_ints("indexed receive", dst, 12);
  OK(MPI_Type_free(&type));
}

struct particle {
  int id;
  double pos[2];
  char tag[3];
};

static void structs(void) {
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  struct particle p = {mt_rank, {mt_rank + 0.5, -mt_rank}, {'a', 'b', (char)('0' + mt_rank % 10)}}, q;
  memset(&q, 0, sizeof q);
  MPI_Aint base, addr[3];
  OK(MPI_Get_address(&p, &base));
  OK(MPI_Get_address(&p.id, &addr[0]));
  OK(MPI_Get_address(&p.pos, &addr[1]));
  OK(MPI_Get_address(&p.tag, &addr[2]));
  const int lens[3] = {1, 2, 3};
  const MPI_Aint displs[3] = {addr[0] - base, addr[1] - base, addr[2] - base};
  const MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Datatype type;
  OK(MPI_Type_create_struct(3, lens, displs, types, &type));
  OK(MPI_Type_commit(&type));
  int size = 0;
  OK(MPI_Type_size(type, &size));
  OK(MPI_Sendrecv(&p, 1, type, right, 4, &q, 1, type, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(q.id == left && q.pos[0] == left + 0.5 && q.pos[1] == -left && q.tag[2] == '0' + left % 10);
  say("struct: size %d, displacements %ld %ld %ld; from the left: id %d pos %.1f %.1f tag %c%c%c", size,
      (long)displs[0], (long)displs[1], (long)displs[2], q.id, q.pos[0], q.pos[1], q.tag[0], q.tag[1], q.tag[2]);
  OK(MPI_Type_free(&type));
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "datatypes");
  predefined();
  vector_and_contiguous();
  indexed();
  structs();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
