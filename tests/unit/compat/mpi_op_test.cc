// Reductions through MPI_Reduce_local (and on one rank MPI_Allreduce): every
// predefined op on the types MPI allows, MPI_ERR_OP on the others, pair types
// with MAXLOC/MINLOC, and user ops.
#include <gtest/gtest.h>
#include <mpi.h>

#include <complex>
#include <cstdint>

namespace {

template <typename T>
T Local(MPI_Datatype type, MPI_Op op, T a, T b) {
  T io = b;
  EXPECT_EQ(MPI_Reduce_local(&a, &io, 1, type, op), MPI_SUCCESS);
  return io;
}

TEST(MpiOp, ArithmeticOnEveryIntegerAndFloatType) {
  EXPECT_EQ(Local<short>(MPI_SHORT, MPI_SUM, 3, -5), -2);
  EXPECT_EQ(Local<unsigned short>(MPI_UNSIGNED_SHORT, MPI_MAX, 3, 9), 9);
  EXPECT_EQ(Local<long>(MPI_LONG, MPI_PROD, 6, 7), 42);
  EXPECT_EQ(Local<char>(MPI_CHAR, MPI_SUM, 2, 3), 5);  // accepted, as Open MPI and MPICH do
  EXPECT_EQ(Local<int8_t>(MPI_INT8_T, MPI_MIN, -3, 4), -3);
  EXPECT_EQ(Local<uint64_t>(MPI_UINT64_T, MPI_SUM, 1, ~0ull), 0u);
  EXPECT_EQ(Local<long double>(MPI_LONG_DOUBLE, MPI_MAX, 1.25L, -2.0L), 1.25L);
  EXPECT_EQ(Local<float>(MPI_FLOAT, MPI_PROD, 1.5f, 4.0f), 6.0f);
  const auto c = Local<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, MPI_PROD, {0, 1}, {0, 1});
  EXPECT_EQ(c, std::complex<double>(-1, 0));
}

TEST(MpiOp, LogicalAndBitwise) {
  EXPECT_EQ(Local<bool>(MPI_C_BOOL, MPI_LAND, true, false), false);
  EXPECT_EQ(Local<bool>(MPI_C_BOOL, MPI_LOR, true, false), true);
  EXPECT_EQ(Local<bool>(MPI_C_BOOL, MPI_LXOR, true, true), false);
  EXPECT_EQ(Local<int>(MPI_INT, MPI_LAND, 5, 2), 1);
  EXPECT_EQ(Local<int>(MPI_INT, MPI_LXOR, 5, 0), 1);
  EXPECT_EQ(Local<unsigned>(MPI_UNSIGNED, MPI_BAND, 0xf0u, 0x3cu), 0x30u);
  EXPECT_EQ(Local<unsigned>(MPI_UNSIGNED, MPI_BOR, 0xf0u, 0x0fu), 0xffu);
  EXPECT_EQ(Local<uint8_t>(MPI_BYTE, MPI_BXOR, 0xffu, 0x0fu), 0xf0u);
}

TEST(MpiOp, MaxlocMinlocTieTakesTheSmallerIndex) {
  struct DI {
    double v;
    int i;
  };
  DI a{2.0, 5}, b{2.0, 3};
  DI r = Local<DI>(MPI_DOUBLE_INT, MPI_MAXLOC, a, b);
  EXPECT_EQ(r.v, 2.0);
  EXPECT_EQ(r.i, 3);
  a = {1.0, 1};
  r = Local<DI>(MPI_DOUBLE_INT, MPI_MINLOC, a, b);
  EXPECT_EQ(r.i, 1);
  struct SI {
    short v;
    int i;
  } s1{-4, 9}, s2{7, 2};
  EXPECT_EQ(Local<SI>(MPI_SHORT_INT, MPI_MAXLOC, s1, s2).i, 2);
  EXPECT_EQ(Local<SI>(MPI_SHORT_INT, MPI_MINLOC, s1, s2).i, 9);
}

TEST(MpiOp, UndefinedCombinationsAreOpErrors) {
  double d = 1, e = 2;
  EXPECT_EQ(MPI_Reduce_local(&d, &e, 1, MPI_DOUBLE, MPI_BAND), MPI_ERR_OP);
  EXPECT_EQ(MPI_Reduce_local(&d, &e, 1, MPI_DOUBLE, MPI_MAXLOC), MPI_ERR_OP);
  bool b = true, c = false;
  EXPECT_EQ(MPI_Reduce_local(&b, &c, 1, MPI_C_BOOL, MPI_SUM), MPI_ERR_OP);
  std::complex<float> x, y;
  EXPECT_EQ(MPI_Reduce_local(&x, &y, 1, MPI_C_FLOAT_COMPLEX, MPI_MAX), MPI_ERR_OP);
  int i = 0, j = 0;
  EXPECT_EQ(MPI_Reduce_local(&i, &j, 1, MPI_INT, MPI_REPLACE), MPI_ERR_OP);
  EXPECT_EQ(MPI_Reduce_local(&i, &j, 1, MPI_INT, static_cast<MPI_Op>(777)), MPI_ERR_OP);
  MPI_Op predefined = MPI_SUM;
  EXPECT_EQ(MPI_Op_free(&predefined), MPI_ERR_OP);
}

void Concat(void* in, void* inout, int* len, MPI_Datatype*) {
  // inout = in "then" inout, as decimal digits: non-commutative.
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int k = 0; k < *len; ++k) b[k] = a[k] * 10 + b[k];
}

TEST(MpiOp, UserOpsAndOneRankCollectives) {
  MPI_Op op;
  ASSERT_EQ(MPI_Op_create(Concat, 0, &op), MPI_SUCCESS);
  int a[2] = {1, 2}, b[2] = {3, 4};
  ASSERT_EQ(MPI_Reduce_local(a, b, 2, MPI_INT, op), MPI_SUCCESS);
  EXPECT_EQ(b[0], 13);
  EXPECT_EQ(b[1], 24);
  int out[2] = {};
  ASSERT_EQ(MPI_Allreduce(a, out, 2, MPI_INT, op, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(out[0], 1);
  ASSERT_EQ(MPI_Scan(a, out, 2, MPI_INT, op, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(out[1], 2);
  ASSERT_EQ(MPI_Op_free(&op), MPI_SUCCESS);
  EXPECT_EQ(op, MPI_OP_NULL);
  short s = 3, so = 0;
  ASSERT_EQ(MPI_Allreduce(&s, &so, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(so, 3);
  int v = 5, r = 0;
  ASSERT_EQ(MPI_Reduce_scatter_block(&v, &r, 1, MPI_INT, MPI_BXOR, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(r, 5);
}

}  // namespace
