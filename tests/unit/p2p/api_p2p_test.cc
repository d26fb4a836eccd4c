// The point-to-point and communicator C API in a singleton job (one rank,
// self messages through the engine's loopback): results, statuses, argument
// validation with outputs left untouched, truncation, timeouts, split/dup/free.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "gpurun/gpurun.h"

namespace {

class SingletonEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("GPURUN_BOOTSTRAP", "singleton", 1);
    setenv("GPURUN_TIMEOUT", "0.3", 1);
    ASSERT_EQ(grInit(nullptr, nullptr), grSuccess) << grGetLastErrorMessage();
  }
  void TearDown() override { EXPECT_EQ(grFinalize(), grSuccess) << grGetLastErrorMessage(); }
};

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new SingletonEnvironment);

std::string LastError() { return grGetLastErrorMessage(); }
bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ApiP2pTest, SelfSendRecvFillsTheStatus) {
  const double out[3] = {1.5, 2.5, 3.5};
  double in[4] = {};
  ASSERT_EQ(grSend(out, 3, grFloat64, 0, 11, grCommWorld(), GR_STREAM_HOST), grSuccess) << LastError();
  grStatus_t st;
  ASSERT_EQ(grRecv(in, 4, grFloat64, GR_ANY_SOURCE, GR_ANY_TAG, grCommWorld(), &st, GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(in[2], 3.5);
  EXPECT_EQ(st.source, 0);
  EXPECT_EQ(st.tag, 11);
  EXPECT_EQ(st.error, grSuccess);
  EXPECT_EQ(st.bytes, 24u);
  EXPECT_EQ(st.count, 3u);
  size_t count = 0;
  ASSERT_EQ(grGetCount(&st, grFloat32, &count), grSuccess);
  EXPECT_EQ(count, 6u);
  size_t size = 0;
  ASSERT_EQ(grTypeSize(grBfloat16, &size), grSuccess);
  EXPECT_EQ(size, 2u);
}

TEST(ApiP2pTest, NonblockingCallsAndWaitVariants) {
  int a = 1, b = 2, ia = 0, ib = 0;
  grRequest_t reqs[3] = {GR_REQUEST_NULL, GR_REQUEST_NULL, GR_REQUEST_NULL};
  ASSERT_EQ(grIrecv(&ia, 1, grInt32, 0, 1, grCommWorld(), GR_STREAM_HOST, &reqs[0]), grSuccess);
  ASSERT_EQ(grIrecv(&ib, 1, grInt32, 0, 2, grCommWorld(), GR_STREAM_HOST, &reqs[1]), grSuccess);
  int flag = 1;
  ASSERT_EQ(grTest(&reqs[0], &flag, GR_STATUS_IGNORE), grSuccess);
  EXPECT_EQ(flag, 0);
  ASSERT_EQ(grIsend(&b, 1, grInt32, 0, 2, grCommWorld(), GR_STREAM_HOST, &reqs[2]), grSuccess);
  int index = -5;
  grStatus_t st;
  ASSERT_EQ(grWaitany(3, reqs, &index, &st), grSuccess);
  EXPECT_TRUE(index == 1 || index == 2) << index;
  EXPECT_EQ(reqs[index], GR_REQUEST_NULL);
  ASSERT_EQ(grSend(&a, 1, grInt32, 0, 1, grCommWorld(), GR_STREAM_HOST), grSuccess);
  grStatus_t sts[3];
  ASSERT_EQ(grWaitall(3, reqs, sts), grSuccess) << LastError();
  EXPECT_EQ(ia, 1);
  EXPECT_EQ(ib, 2);
  for (grRequest_t r : reqs) EXPECT_EQ(r, GR_REQUEST_NULL);
  grRequest_t none = GR_REQUEST_NULL;
  ASSERT_EQ(grWait(&none, &st), grSuccess);
  EXPECT_EQ(st.source, GR_ANY_SOURCE);
  int out = 9, in = 0;
  ASSERT_EQ(grSendrecv(&out, 1, grInt32, 0, 3, &in, 1, grInt32, 0, 3, grCommWorld(), &st, GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(in, 9);
  EXPECT_EQ(st.tag, 3);
}

TEST(ApiP2pTest, TruncationReportsAndKeepsGuardBytes) {
  const char msg[10] = "123456789";
  char buf[8];
  std::memset(buf, '#', sizeof buf);
  ASSERT_EQ(grSend(msg, 10, grByte, 0, 4, grCommWorld(), GR_STREAM_HOST), grSuccess);
  grStatus_t st;
  EXPECT_EQ(grRecv(buf + 2, 4, grByte, 0, 4, grCommWorld(), &st, GR_STREAM_HOST), grTruncated);
  EXPECT_TRUE(Contains(LastError(), "has 10 bytes but the receive buffer holds 4")) << LastError();
  EXPECT_EQ(st.error, grTruncated);
  EXPECT_EQ(st.bytes, 4u);
  EXPECT_EQ(std::string(buf, 8), "##1234##");
}

TEST(ApiP2pTest, ProbeAndIprobe) {
  int flag = 1;
  grStatus_t st;
  ASSERT_EQ(grIprobe(GR_ANY_SOURCE, 5, grCommWorld(), &flag, &st), grSuccess);
  EXPECT_EQ(flag, 0);
  const int v[2] = {1, 2};
  ASSERT_EQ(grSend(v, 2, grInt32, 0, 5, grCommWorld(), GR_STREAM_HOST), grSuccess);
  ASSERT_EQ(grProbe(0, 5, grCommWorld(), &st), grSuccess);
  EXPECT_EQ(st.bytes, 8u);
  EXPECT_EQ(st.count, 8u);
  ASSERT_EQ(grIprobe(0, GR_ANY_TAG, grCommWorld(), &flag, GR_STATUS_IGNORE), grSuccess);
  EXPECT_EQ(flag, 1);
  int in[2];
  ASSERT_EQ(grRecv(in, 2, grInt32, 0, 5, grCommWorld(), GR_STATUS_IGNORE, GR_STREAM_HOST), grSuccess);
}

TEST(ApiP2pTest, ArgumentsAreValidatedAndOutputsLeftUntouched) {
  int v = 0;
  grRequest_t sentinel = reinterpret_cast<grRequest_t>(0x1234);
  grRequest_t req = sentinel;
  grComm_t world = grCommWorld();
  struct Case {
    grResult_t got, want;
    const char* message;
  };
  const Case cases[] = {
      {grSend(nullptr, 1, grInt32, 0, 0, world, GR_STREAM_HOST), grInvalidArgument, "grSend: the send buffer is null"},
      {grSend(&v, SIZE_MAX / 2, grInt64, 0, 0, world, GR_STREAM_HOST), grInvalidArgument, "overflows"},
      {grSend(&v, 1, static_cast<grDataType_t>(42), 0, 0, world, GR_STREAM_HOST), grInvalidArgument, "datatype 42"},
      {grSend(&v, 1, grInt32, 1, 0, world, GR_STREAM_HOST), grInvalidArgument, "destination rank 1 is outside"},
      {grSend(&v, 1, grInt32, 0, -1, world, GR_STREAM_HOST), grInvalidArgument, "tag -1 is outside"},
      {grSend(&v, 1, grInt32, 0, GR_TAG_UB + 1, world, GR_STREAM_HOST), grInvalidArgument, "GR_TAG_UB"},
      {grRecv(&v, 1, grInt32, 0, -5, world, nullptr, GR_STREAM_HOST), grInvalidArgument, "neither GR_ANY_TAG"},
      {grRecv(&v, 1, grInt32, -3, 0, world, nullptr, GR_STREAM_HOST), grInvalidArgument, "neither GR_ANY_SOURCE"},
      {grSend(&v, 1, grInt32, 0, 0, GR_COMM_NULL, GR_STREAM_HOST), grInvalidArgument, "GR_COMM_NULL"},
      {grIsend(&v, 1, grInt32, 0, 0, world, reinterpret_cast<grStream_t>(0x10), &req), grUnsupported,
       "grIsend: a stream orders device work, but the send buffer is host memory"},
      {grIrecv(&v, 1, grInt32, 2, 0, world, GR_STREAM_HOST, &req), grInvalidArgument, "grIrecv: source rank 2"},
      {grIsend(&v, 1, grInt32, 0, 0, world, GR_STREAM_HOST, nullptr), grInvalidArgument, "request is null"},
      {grWait(nullptr, nullptr), grInvalidArgument, "grWait: request is null"},
      {grWait(&req, nullptr), grInvalidArgument, "not a live request"},
      {grWaitall(-1, &req, nullptr), grInvalidArgument, "negative"},
      {grProbe(0, -7, world, nullptr), grInvalidArgument, "grProbe: tag -7"},
      {grGetCount(nullptr, grInt32, nullptr), grInvalidArgument, "status is null"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.got, c.want) << c.message;
  }
  EXPECT_EQ(req, sentinel);
  // The last error message is the last call's; check a few directly.
  EXPECT_EQ(grSend(nullptr, 1, grInt32, 0, 0, world, GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grSend: the send buffer is null but count is 1")) << LastError();
  EXPECT_EQ(grIsend(&v, 1, grInt32, 0, 0, world, reinterpret_cast<grStream_t>(0x10), &req), grUnsupported);
  EXPECT_TRUE(Contains(LastError(), "pass GR_STREAM_HOST for host buffers")) << LastError();
  EXPECT_EQ(grRecv(&v, 1, grInt32, 0, GR_TAG_UB + 1, world, nullptr, GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grRecv: tag")) << LastError();
}

TEST(ApiP2pTest, ReceiveTimesOutNamingThePeer) {
  int v = 0;
  grStatus_t st{};
  EXPECT_EQ(grRecv(&v, 1, grInt32, 0, 7, grCommWorld(), &st, GR_STREAM_HOST), grTimeout);
  EXPECT_EQ(LastError(), "grRecv from rank 0 (world 0) tag 7 on context 0 timed out after 0.3 s");
  EXPECT_EQ(st.error, grTimeout);
}

TEST(ApiCommTest, SplitDupAndFree) {
  grComm_t dup = GR_COMM_NULL, none = reinterpret_cast<grComm_t>(0x1), half = GR_COMM_NULL;
  ASSERT_EQ(grCommDup(grCommWorld(), &dup), grSuccess) << LastError();
  ASSERT_EQ(grCommSplit(grCommWorld(), GR_UNDEFINED, 0, &none), grSuccess);
  EXPECT_EQ(none, GR_COMM_NULL);
  ASSERT_EQ(grCommSplit(dup, 3, 0, &half), grSuccess);
  int rank = -1, size = -1;
  ASSERT_EQ(grCommRank(half, &rank), grSuccess);
  ASSERT_EQ(grCommSize(half, &size), grSuccess);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 1);
  EXPECT_EQ(grCommSplit(grCommWorld(), -2, 0, &none), grInvalidArgument);
  // Dup and world do not share messages.
  int a = 1, b = 2, in = 0;
  ASSERT_EQ(grSend(&a, 1, grInt32, 0, 0, grCommWorld(), GR_STREAM_HOST), grSuccess);
  ASSERT_EQ(grSend(&b, 1, grInt32, 0, 0, dup, GR_STREAM_HOST), grSuccess);
  ASSERT_EQ(grRecv(&in, 1, grInt32, 0, 0, dup, nullptr, GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(in, 2);
  ASSERT_EQ(grRecv(&in, 1, grInt32, 0, 0, grCommWorld(), nullptr, GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(in, 1);
  grRequest_t pending;
  ASSERT_EQ(grIrecv(&in, 1, grInt32, 0, 1, dup, GR_STREAM_HOST, &pending), grSuccess);
  EXPECT_EQ(grCommFree(&dup), grInvalidUsage);
  EXPECT_TRUE(Contains(LastError(), "grCommFree: 1 request(s)")) << LastError();
  ASSERT_EQ(grSend(&a, 1, grInt32, 0, 1, dup, GR_STREAM_HOST), grSuccess);
  ASSERT_EQ(grWait(&pending, GR_STATUS_IGNORE), grSuccess);
  grComm_t freed = dup;
  ASSERT_EQ(grCommFree(&dup), grSuccess);
  EXPECT_EQ(dup, GR_COMM_NULL);
  EXPECT_EQ(grSend(&a, 1, grInt32, 0, 1, freed, GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "not live")) << LastError();
  grComm_t world = grCommWorld();
  EXPECT_EQ(grCommFree(&world), grInvalidUsage);
  ASSERT_EQ(grCommFree(&half), grSuccess);
}

}  // namespace
