// grIssend and grCancel, the gr* calls added for MPI_Ssend and MPI_Cancel, on
// a singleton job's world communicator (messages to itself: the loopback wire).
#include <gtest/gtest.h>

#include <vector>

#include "gpurun/gpurun.h"

namespace {

TEST(GrIssend, CompletesOnlyOnceAReceiveMatches) {
  grComm_t world = grCommWorld();
  int x = 5, y = 0, flag = 1;
  grRequest_t s = GR_REQUEST_NULL, r = GR_REQUEST_NULL;
  ASSERT_EQ(grIssend(&x, 1, grInt32, 0, 3, world, GR_STREAM_HOST, &s), grSuccess);
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(grTest(&s, &flag, GR_STATUS_IGNORE), grSuccess);
    ASSERT_EQ(flag, 0);
  }
  ASSERT_EQ(grIrecv(&y, 1, grInt32, 0, 3, world, GR_STREAM_HOST, &r), grSuccess);
  ASSERT_EQ(grWait(&s, GR_STATUS_IGNORE), grSuccess);
  ASSERT_EQ(grWait(&r, GR_STATUS_IGNORE), grSuccess);
  EXPECT_EQ(y, 5);
}

TEST(GrIssend, AReceivePostedFirstCompletesItAtArrival) {
  grComm_t world = grCommWorld();
  std::vector<char> big(1 << 20, 'q'), got(1 << 20);
  grRequest_t r = GR_REQUEST_NULL, s = GR_REQUEST_NULL;
  ASSERT_EQ(grIrecv(got.data(), got.size(), grByte, GR_ANY_SOURCE, GR_ANY_TAG, world, GR_STREAM_HOST, &r), grSuccess);
  ASSERT_EQ(grIssend(big.data(), big.size(), grByte, 0, 9, world, GR_STREAM_HOST, &s), grSuccess);
  grStatus_t st;
  ASSERT_EQ(grWait(&s, GR_STATUS_IGNORE), grSuccess);
  ASSERT_EQ(grWait(&r, &st), grSuccess);
  EXPECT_EQ(st.bytes, big.size());
  EXPECT_EQ(got[12345], 'q');
}

TEST(GrIssend, ArgumentErrors) {
  int x = 0;
  grRequest_t s = GR_REQUEST_NULL;
  EXPECT_EQ(grIssend(&x, 1, grInt32, 1, 0, grCommWorld(), GR_STREAM_HOST, &s), grInvalidArgument);
  EXPECT_EQ(grIssend(&x, 1, grInt32, 0, 0, grCommWorld(), GR_STREAM_HOST, nullptr), grInvalidArgument);
  EXPECT_EQ(s, GR_REQUEST_NULL);
}

TEST(GrCancel, WithdrawsAnUnmatchedReceiveOnly) {
  grComm_t world = grCommWorld();
  int x = 0, cancelled = -1;
  grRequest_t r = GR_REQUEST_NULL;
  ASSERT_EQ(grIrecv(&x, 1, grInt32, 0, 77, world, GR_STREAM_HOST, &r), grSuccess);
  ASSERT_EQ(grCancel(&r, &cancelled), grSuccess);
  EXPECT_EQ(cancelled, 1);
  EXPECT_EQ(r, GR_REQUEST_NULL);
  // A matched receive stays.
  int v = 4;
  ASSERT_EQ(grSend(&v, 1, grInt32, 0, 78, world, GR_STREAM_HOST), grSuccess);
  ASSERT_EQ(grIrecv(&x, 1, grInt32, 0, 78, world, GR_STREAM_HOST, &r), grSuccess);
  ASSERT_EQ(grCancel(&r, &cancelled), grSuccess);
  EXPECT_EQ(cancelled, 0);
  ASSERT_EQ(grWait(&r, GR_STATUS_IGNORE), grSuccess);
  EXPECT_EQ(x, 4);
  // A send is never cancelled.
  grRequest_t s = GR_REQUEST_NULL;
  ASSERT_EQ(grIsend(&v, 1, grInt32, 0, 79, world, GR_STREAM_HOST, &s), grSuccess);
  ASSERT_EQ(grCancel(&s, &cancelled), grSuccess);
  EXPECT_EQ(cancelled, 0);
  ASSERT_EQ(grWait(&s, GR_STATUS_IGNORE), grSuccess);
  ASSERT_EQ(grRecv(&x, 1, grInt32, 0, 79, world, GR_STATUS_IGNORE, GR_STREAM_HOST), grSuccess);
  // Requests already freed are argument errors.
  EXPECT_EQ(grCancel(&s, &cancelled), grInvalidArgument);
  EXPECT_EQ(grCancel(nullptr, &cancelled), grInvalidArgument);
}

}  // namespace
