// MPI_Waitany / MPI_Waitsome on one rank over mixes of requests: receives
// into a derived (non-contiguous, staged) datatype, contiguous receives,
// nonblocking collectives and completed requests. Each wait must end within
// GPURUN_TIMEOUT (3 s here, mpi_test_main.cc) with MPI_ERR_TIMEOUT naming the
// operation and its peer, and a staged receive must be unpacked whichever
// wait completes it.
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <string>
#include <thread>

namespace {

// Runs `wait` on a thread of its own; a wait that ignores GPURUN_TIMEOUT (3 s)
// would never return, so after 30 s the test binary ends, failing, instead.
int Bounded(const char* what, const std::function<int()>& wait) {
  std::packaged_task<int()> task(wait);
  std::future<int> result = task.get_future();
  std::thread(std::move(task)).detach();
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not return within 30 s (GPURUN_TIMEOUT is 3 s)\n", what);
    std::_Exit(1);
  }
  return result.get();
}

std::string LastMessage(int code) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, msg, &len);
  return std::string(msg, static_cast<size_t>(len));
}

class MpiWait : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(MPI_Type_vector(3, 1, 2, MPI_INT, &strided_), MPI_SUCCESS);  // ints 0, 2, 4
    ASSERT_EQ(MPI_Type_commit(&strided_), MPI_SUCCESS);
  }
  void TearDown() override { MPI_Type_free(&strided_); }

  MPI_Datatype strided_ = MPI_DATATYPE_NULL;
};

TEST_F(MpiWait, WaitanyOnStagedAndPlainReceivesTimesOutNamingThePeer) {
  int grid[5] = {}, x = 0, index = -2;
  MPI_Request r[2];
  ASSERT_EQ(MPI_Irecv(grid, 1, strided_, 0, 4301, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Irecv(&x, 1, MPI_INT, 0, 4302, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
  const auto t0 = std::chrono::steady_clock::now();
  std::string msg;  // the detailed message is the waiting thread's
  const int rc = Bounded("MPI_Waitany", [&] {
    const int code = MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE);
    msg = LastMessage(code);
    return code;
  });
  EXPECT_EQ(rc, MPI_ERR_TIMEOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2900));
  EXPECT_EQ(index, MPI_UNDEFINED);
  EXPECT_EQ(r[0], MPI_REQUEST_NULL);
  EXPECT_EQ(r[1], MPI_REQUEST_NULL);
  EXPECT_NE(msg.find("timed out"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0"), std::string::npos) << msg;
}

TEST_F(MpiWait, WaitsomeOnStagedReceivesTimesOutEveryOne) {
  int a[5] = {}, b[5] = {}, out = -1, idx[2] = {-1, -1};
  MPI_Request r[2];
  MPI_Status st[2];
  ASSERT_EQ(MPI_Irecv(a, 1, strided_, 0, 4303, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Irecv(b, 1, strided_, MPI_ANY_SOURCE, 4304, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
  const int rc = Bounded("MPI_Waitsome", [&] { return MPI_Waitsome(2, r, &out, idx, st); });
  EXPECT_EQ(rc, MPI_ERR_IN_STATUS);
  EXPECT_EQ(out, 2);
  EXPECT_EQ(st[0].MPI_ERROR, MPI_ERR_TIMEOUT);
  EXPECT_EQ(st[1].MPI_ERROR, MPI_ERR_TIMEOUT);
  EXPECT_EQ(r[0], MPI_REQUEST_NULL);
  EXPECT_EQ(r[1], MPI_REQUEST_NULL);
}

// A mix with a nonblocking collective: the collective completes first; then
// the staged receive left alone times out.
TEST_F(MpiWait, WaitanyOnAReceiveAndACollective) {
  int grid[5] = {}, index = -2;
  MPI_Request r[2];
  ASSERT_EQ(MPI_Irecv(grid, 1, strided_, 0, 4305, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Ibarrier(MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
  EXPECT_EQ(Bounded("MPI_Waitany", [&] { return MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE); }), MPI_SUCCESS);
  EXPECT_EQ(index, 1);
  EXPECT_EQ(Bounded("MPI_Waitany", [&] { return MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE); }), MPI_ERR_TIMEOUT);
  EXPECT_EQ(r[0], MPI_REQUEST_NULL);
}

// Staged receives completed by MPI_Waitany and MPI_Waitsome are unpacked: the
// strided ints land at 0, 2, 4 and the gaps keep their values.
TEST_F(MpiWait, StagedReceivesAreUnpacked) {
  const int src[5] = {10, -1, 20, -1, 30};
  int a[5] = {7, 7, 7, 7, 7}, b[5] = {8, 8, 8, 8, 8}, index = -2, out = -1, idx[2] = {-1, -1};
  MPI_Request r[2];
  MPI_Status st;
  ASSERT_EQ(MPI_Irecv(a, 1, strided_, 0, 4306, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Irecv(b, 1, strided_, 0, 4307, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
  ASSERT_EQ(MPI_Send(src, 1, strided_, 0, 4306, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(Bounded("MPI_Waitany", [&] { return MPI_Waitany(2, r, &index, &st); }), MPI_SUCCESS);
  EXPECT_EQ(index, 0);
  EXPECT_EQ(st.MPI_TAG, 4306);
  int count = -1;
  MPI_Get_count(&st, strided_, &count);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(a[0], 10);
  EXPECT_EQ(a[1], 7);
  EXPECT_EQ(a[2], 20);
  EXPECT_EQ(a[3], 7);
  EXPECT_EQ(a[4], 30);
  ASSERT_EQ(MPI_Send(src, 1, strided_, 0, 4307, MPI_COMM_WORLD), MPI_SUCCESS);
  ASSERT_EQ(Bounded("MPI_Waitsome", [&] { return MPI_Waitsome(2, r, &out, idx, MPI_STATUSES_IGNORE); }), MPI_SUCCESS);
  EXPECT_EQ(out, 1);
  EXPECT_EQ(idx[0], 1);
  EXPECT_EQ(b[0], 10);
  EXPECT_EQ(b[1], 8);
  EXPECT_EQ(b[4], 30);
}

}  // namespace
