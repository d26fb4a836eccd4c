// Datatypes: predefined sizes and names, derived type maps (extent, size),
// pack/unpack, and the messages they make (a singleton job sends to itself).
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Named {
  MPI_Datatype type;
  size_t size;
  const char* name;
};

TEST(MpiDatatype, PredefinedSizesAndNames) {
  const Named all[] = {
      {MPI_CHAR, 1, "MPI_CHAR"},
      {MPI_SHORT, sizeof(short), "MPI_SHORT"},
      {MPI_INT, sizeof(int), "MPI_INT"},
      {MPI_LONG, sizeof(long), "MPI_LONG"},
      {MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG_INT"},
      {MPI_UNSIGNED_SHORT, sizeof(unsigned short), "MPI_UNSIGNED_SHORT"},
      {MPI_FLOAT, 4, "MPI_FLOAT"},
      {MPI_DOUBLE, 8, "MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE"},
      {MPI_C_BOOL, sizeof(bool), "MPI_C_BOOL"},
      {MPI_C_DOUBLE_COMPLEX, sizeof(std::complex<double>), "MPI_C_DOUBLE_COMPLEX"},
      {MPI_INT64_T, 8, "MPI_INT64_T"},
      {MPI_UINT16_T, 2, "MPI_UINT16_T"},
      {MPI_AINT, sizeof(MPI_Aint), "MPI_AINT"},
      {MPI_DOUBLE_INT, 12, "MPI_DOUBLE_INT"},  // data only, as Open MPI: extent 16
      {MPI_SHORT_INT, 6, "MPI_SHORT_INT"},
      {MPI_2INT, 8, "MPI_2INT"},
      {MPI_BYTE, 1, "MPI_BYTE"},
      {MPI_PACKED, 1, "MPI_PACKED"},
  };
  for (const Named& n : all) {
    int size = -1, len = -1;
    char name[MPI_MAX_OBJECT_NAME];
    ASSERT_EQ(MPI_Type_size(n.type, &size), MPI_SUCCESS) << n.name;
    EXPECT_EQ(size, static_cast<int>(n.size)) << n.name;
    ASSERT_EQ(MPI_Type_get_name(n.type, name, &len), MPI_SUCCESS);
    EXPECT_STREQ(name, n.name);
    EXPECT_EQ(len, static_cast<int>(std::strlen(n.name)));
  }
}

TEST(MpiDatatype, PairTypesHaveDataSizeAndStructExtent) {
  MPI_Aint lb = -1, extent = -1;
  ASSERT_EQ(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent), MPI_SUCCESS);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, 16);
  ASSERT_EQ(MPI_Type_get_extent(MPI_SHORT_INT, &lb, &extent), MPI_SUCCESS);
  EXPECT_EQ(extent, 8);
  struct DI {
    double v;
    int i;
  } in[2] = {{1.5, 3}, {2.5, 4}}, out[2] = {};
  ASSERT_EQ(MPI_Sendrecv(in, 2, MPI_DOUBLE_INT, 0, 9, out, 2, MPI_DOUBLE_INT, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  EXPECT_EQ(out[1].v, 2.5);
  EXPECT_EQ(out[1].i, 4);
}

TEST(MpiDatatype, VectorExtentAndPack) {
  MPI_Datatype v;
  ASSERT_EQ(MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &v), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&v), MPI_SUCCESS);
  int size = 0;
  MPI_Aint lb = -1, extent = -1, tlb = -1, textent = -1;
  MPI_Type_size(v, &size);
  MPI_Type_get_extent(v, &lb, &extent);
  MPI_Type_get_true_extent(v, &tlb, &textent);
  EXPECT_EQ(size, 6 * 8);
  EXPECT_EQ(lb, 0);
  EXPECT_EQ(extent, 12 * 8);  // (3-1)*5 + 2 doubles
  EXPECT_EQ(textent, 12 * 8);
  std::vector<double> src(24);
  for (int i = 0; i < 24; ++i) src[i] = i;
  std::vector<char> packed(200);
  int pos = 0;
  ASSERT_EQ(MPI_Pack(src.data(), 2, v, packed.data(), 200, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(pos, 96);
  std::vector<double> flat(12);
  std::memcpy(flat.data(), packed.data(), 96);
  const double expect[12] = {0, 1, 5, 6, 10, 11, 12, 13, 17, 18, 22, 23};  // second instance at extent 12
  for (int i = 0; i < 12; ++i) EXPECT_EQ(flat[i], expect[i]) << i;
  std::vector<double> back(24, -1);
  pos = 0;
  ASSERT_EQ(MPI_Unpack(packed.data(), 96, &pos, back.data(), 2, v, MPI_COMM_WORLD), MPI_SUCCESS);
  for (int inst = 0; inst < 2; ++inst) {
    for (int off : {0, 1, 5, 6, 10, 11}) EXPECT_EQ(back[12 * inst + off], src[12 * inst + off]);
  }
  EXPECT_EQ(back[2], -1);
  pos = 0;
  EXPECT_EQ(MPI_Pack(src.data(), 2, v, packed.data(), 50, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  MPI_Type_free(&v);
  EXPECT_EQ(v, MPI_DATATYPE_NULL);
}

TEST(MpiDatatype, StructResizedAndIndexed) {
  struct S {
    char c;
    double d;
    int i[2];
  };
  int lens[3] = {1, 1, 2};
  MPI_Aint disps[3] = {offsetof(S, c), offsetof(S, d), offsetof(S, i)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, st, rs;
  ASSERT_EQ(MPI_Type_create_struct(3, lens, disps, types, &st), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_create_resized(st, 0, sizeof(S), &rs), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&rs), MPI_SUCCESS);
  int size = 0;
  MPI_Aint lb, extent;
  MPI_Type_size(rs, &size);
  MPI_Type_get_extent(rs, &lb, &extent);
  EXPECT_EQ(size, 1 + 8 + 8);
  EXPECT_EQ(extent, static_cast<MPI_Aint>(sizeof(S)));
  S in[3] = {{'x', 1.5, {1, 2}}, {'y', 2.5, {3, 4}}, {'z', 3.5, {5, 6}}}, out[3] = {};
  ASSERT_EQ(MPI_Sendrecv(in, 3, rs, 0, 1, out, 3, rs, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(out[2].c, 'z');
  EXPECT_EQ(out[1].d, 2.5);
  EXPECT_EQ(out[2].i[1], 6);
  MPI_Type_free(&st);
  MPI_Type_free(&rs);

  int blens[2] = {2, 1}, idisps[2] = {3, 0};
  MPI_Datatype ix;
  ASSERT_EQ(MPI_Type_indexed(2, blens, idisps, MPI_INT, &ix), MPI_SUCCESS);
  ASSERT_EQ(MPI_Type_commit(&ix), MPI_SUCCESS);
  int src[5] = {10, 11, 12, 13, 14}, got[3] = {};
  ASSERT_EQ(MPI_Sendrecv(src, 1, ix, 0, 2, got, 3, MPI_INT, 0, 2, MPI_COMM_SELF, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(got[0], 13);  // type-map order: block (3,4) first, then (0)
  EXPECT_EQ(got[1], 14);
  EXPECT_EQ(got[2], 10);
  MPI_Type_free(&ix);
}

TEST(MpiDatatype, ErrorsAreTypeErrors) {
  MPI_Datatype t;
  int x = 0;
  ASSERT_EQ(MPI_Type_contiguous(4, MPI_INT, &t), MPI_SUCCESS);
  EXPECT_EQ(MPI_Send(&x, 1, t, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);  // not committed
  MPI_Type_free(&t);
  MPI_Datatype pre = MPI_INT;
  EXPECT_EQ(MPI_Type_free(&pre), MPI_ERR_TYPE);
  EXPECT_EQ(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  EXPECT_EQ(MPI_Type_contiguous(1, 999999, &t), MPI_ERR_TYPE);
  MPI_Aint a = 0, b = 0;
  int arr[2];
  MPI_Get_address(&arr[0], &a);
  MPI_Get_address(&arr[1], &b);
  EXPECT_EQ(MPI_Aint_diff(b, a), static_cast<MPI_Aint>(sizeof(int)));
}

}  // namespace
