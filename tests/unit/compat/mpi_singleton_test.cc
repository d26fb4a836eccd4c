// The MPI layer on one rank: world calls, communicators, point-to-point to
// itself (incl. wildcards, truncation, cancel), nonblocking collectives,
// errors through MPI_ERRORS_RETURN and user handlers, topologies, and the
// unsupported calls.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

TEST(MpiSingleton, WorldAndThreadLevel) {
  int flag = 0, provided = -1, rank = -1, size = -1;
  MPI_Initialized(&flag);
  EXPECT_EQ(flag, 1);
  MPI_Query_thread(&provided);
  EXPECT_EQ(provided, MPI_THREAD_MULTIPLE);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 1);
  int again = MPI_Init(nullptr, nullptr);
  EXPECT_EQ(again, MPI_ERR_OTHER);  // through MPI_COMM_WORLD's handler: MPI_ERRORS_RETURN here
}

TEST(MpiSingleton, SelfMessagesWildcardsAndCount) {
  int out[3] = {1, 2, 3}, in[3] = {};
  MPI_Status st;
  MPI_Request r;
  ASSERT_EQ(MPI_Irecv(in, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Send(out, 2, MPI_INT, 0, 17, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  EXPECT_EQ(st.MPI_SOURCE, 0);
  EXPECT_EQ(st.MPI_TAG, 17);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  EXPECT_EQ(count, 2);
  EXPECT_EQ(in[1], 2);
  EXPECT_EQ(MPI_Send(out, 3, MPI_INT, 0, 1, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT_EQ(MPI_Recv(in, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
  EXPECT_EQ(in[0], 1);
}

TEST(MpiSingleton, SynchronousSendToSelfWaitsForTheReceive) {
  int x = 9, y = 0, flag = 1;
  MPI_Request s, r;
  ASSERT_EQ(MPI_Issend(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &s), MPI_SUCCESS);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(MPI_Test(&s, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    ASSERT_EQ(flag, 0) << "an MPI_Issend completed before any receive matched it";
  }
  ASSERT_EQ(MPI_Irecv(&y, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&s, MPI_STATUS_IGNORE), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(y, 9);
}

TEST(MpiSingleton, CancelAnUnmatchedReceive) {
  int x = 0, flag = 0;
  MPI_Request r;
  MPI_Status st;
  ASSERT_EQ(MPI_Irecv(&x, 1, MPI_INT, 0, 55, MPI_COMM_WORLD, &r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Cancel(&r), MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&r, &st), MPI_SUCCESS);
  MPI_Test_cancelled(&st, &flag);
  EXPECT_EQ(flag, 1);
  // A later message with that tag is not taken by the cancelled receive.
  int v = 3;
  ASSERT_EQ(MPI_Send(&v, 1, MPI_INT, 0, 55, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(MPI_Recv(&x, 1, MPI_INT, 0, 55, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(x, 3);
  MPI_Request null_request = MPI_REQUEST_NULL;
  EXPECT_EQ(MPI_Cancel(&null_request), MPI_ERR_REQUEST);
}

TEST(MpiSingleton, WaitsOnAReceiveNoMessageMatchesTimeOut) {
  int x = 0, out = -1, idx[2] = {-1, -1};
  MPI_Request r[2];
  MPI_Status st[2];
  ASSERT_EQ(MPI_Irecv(&x, 1, MPI_INT, 0, 4242, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  r[1] = MPI_REQUEST_NULL;
  EXPECT_EQ(MPI_Waitsome(2, r, &out, idx, st), MPI_ERR_IN_STATUS);
  EXPECT_EQ(out, 1);
  EXPECT_EQ(idx[0], 0);
  EXPECT_EQ(st[0].MPI_ERROR, MPI_ERR_TIMEOUT);
  EXPECT_EQ(r[0], MPI_REQUEST_NULL);
  ASSERT_EQ(MPI_Irecv(&x, 1, MPI_INT, 0, 4243, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  EXPECT_EQ(MPI_Wait(&r[0], MPI_STATUS_IGNORE), MPI_ERR_TIMEOUT);
  EXPECT_EQ(r[0], MPI_REQUEST_NULL);
}

TEST(MpiSingleton, NonblockingCollectivesAndCommunicators) {
  MPI_Comm dup;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
  int cmp = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  EXPECT_EQ(cmp, MPI_CONGRUENT);
  int v = 4, s = 0, b = 8;
  MPI_Request r[3];
  ASSERT_EQ(MPI_Iallreduce(&v, &s, 1, MPI_INT, MPI_SUM, dup, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Ibcast(&b, 1, MPI_INT, 0, dup, &r[1]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Ibarrier(dup, &r[2]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(s, 4);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_Comm_set_name(dup, "mine");
  MPI_Comm_get_name(dup, name, &len);
  EXPECT_STREQ(name, "mine");
  ASSERT_EQ(MPI_Comm_free(&dup), MPI_SUCCESS);
  EXPECT_EQ(dup, MPI_COMM_NULL);
  EXPECT_EQ(MPI_Comm_size(dup, &len), MPI_ERR_COMM);
}

TEST(MpiSingleton, ArgumentErrorsReturnTheirClass) {
  int x = 0;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  EXPECT_EQ(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  MPI_Error_string(MPI_ERR_RANK, msg, &len);
  EXPECT_NE(std::string(msg).find("MPI_ERR_RANK"), std::string::npos);
  EXPECT_NE(std::string(msg).find("destination 1"), std::string::npos) << msg;
  EXPECT_EQ(MPI_Send(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
  EXPECT_EQ(MPI_Recv(&x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
  EXPECT_EQ(MPI_Reduce(&x, &len, 1, MPI_INT, MPI_SUM, 3, MPI_COMM_WORLD), MPI_ERR_ROOT);
  EXPECT_EQ(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  int cls = -1;
  EXPECT_EQ(MPI_Error_class(MPI_ERR_TRUNCATE, &cls), MPI_SUCCESS);
  EXPECT_EQ(cls, MPI_ERR_TRUNCATE);
  EXPECT_EQ(MPI_Error_string(12345, msg, &len), MPI_ERR_ARG);
}

int g_calls = 0, g_code = 0;
void Handler(MPI_Comm*, int* code, ...) {
  ++g_calls;
  g_code = *code;
}

TEST(MpiSingleton, UserHandlerAndUnsupportedCalls) {
  MPI_Errhandler h;
  ASSERT_EQ(MPI_Comm_create_errhandler(Handler, &h), MPI_SUCCESS);
  MPI_Comm c;
  ASSERT_EQ(MPI_Comm_dup(MPI_COMM_SELF, &c), MPI_SUCCESS);
  ASSERT_EQ(MPI_Comm_set_errhandler(c, h), MPI_SUCCESS);
  MPI_Win w;
  int x = 0;
  EXPECT_EQ(MPI_Win_create(&x, 4, 1, MPI_INFO_NULL, c, &w), MPI_ERR_UNSUPPORTED_OPERATION);
  EXPECT_EQ(g_calls, 1);
  EXPECT_EQ(g_code, MPI_ERR_UNSUPPORTED_OPERATION);
  EXPECT_EQ(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, w), MPI_ERR_UNSUPPORTED_OPERATION);
  MPI_Comm g;
  EXPECT_EQ(
      MPI_Dist_graph_create_adjacent(c, 0, nullptr, MPI_UNWEIGHTED, 0, nullptr, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
      MPI_ERR_UNSUPPORTED_OPERATION);
  EXPECT_EQ(g_calls, 2);
  MPI_Comm_free(&c);
  MPI_Errhandler_free(&h);
}

TEST(MpiSingleton, DimsCreateAndCartesian) {
  struct Case {
    int nnodes, ndims;
    std::vector<int> in, out;
  };
  const Case cases[] = {{6, 2, {0, 0}, {3, 2}},       {7, 2, {0, 0}, {7, 1}},       {12, 3, {0, 0, 0}, {3, 2, 2}},
                        {16, 2, {0, 0}, {4, 4}},      {6, 3, {0, 3, 0}, {2, 3, 1}}, {1, 2, {0, 0}, {1, 1}},
                        {24, 3, {0, 0, 0}, {4, 3, 2}}};
  for (const Case& c : cases) {
    std::vector<int> dims = c.in;
    ASSERT_EQ(MPI_Dims_create(c.nnodes, c.ndims, dims.data()), MPI_SUCCESS);
    EXPECT_EQ(dims, c.out) << c.nnodes << " over " << c.ndims;
  }
  int bad[2] = {4, 0};
  EXPECT_EQ(MPI_Dims_create(6, 2, bad), MPI_ERR_DIMS);
  int dims[1] = {1}, periods[1] = {1};
  MPI_Comm cart;
  ASSERT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart), MPI_SUCCESS);
  int src = -5, dst = -5;
  ASSERT_EQ(MPI_Cart_shift(cart, 0, 1, &src, &dst), MPI_SUCCESS);
  EXPECT_EQ(src, 0);
  EXPECT_EQ(dst, 0);
  MPI_Comm_free(&cart);
  int too_big[1] = {2};
  EXPECT_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, too_big, periods, 0, &cart), MPI_ERR_DIMS);
}

}  // namespace
