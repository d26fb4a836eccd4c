// The collective C API in a singleton job (one rank): the order of the
// checks (communicator, arguments, then stream), error messages that name
// the call, outputs untouched on error, and the one-rank results of every
// collective, in place and out of place, with counts of 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

namespace {

class SingletonEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    setenv("GPURUN_BOOTSTRAP", "singleton", 1);
    setenv("GPURUN_TIMEOUT", "5", 1);
    ASSERT_EQ(grInit(nullptr, nullptr), grSuccess) << grGetLastErrorMessage();
  }
  void TearDown() override { EXPECT_EQ(grFinalize(), grSuccess) << grGetLastErrorMessage(); }
};

const ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new SingletonEnvironment);

std::string LastError() { return grGetLastErrorMessage(); }
bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
const grStream_t kDeviceStream = reinterpret_cast<grStream_t>(0x1000);

TEST(ApiCollTest, CommunicatorIsCheckedFirst) {
  int x = 1, y = 0;
  EXPECT_EQ(grAllreduce(&x, &y, 1, static_cast<grDataType_t>(99), grSum, GR_COMM_NULL, kDeviceStream),
            grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grAllreduce: communicator is GR_COMM_NULL")) << LastError();
  grComm_t dup = GR_COMM_NULL;
  ASSERT_EQ(grCommDup(grCommWorld(), &dup), grSuccess);
  grComm_t stale = dup;
  ASSERT_EQ(grCommFree(&dup), grSuccess);
  EXPECT_EQ(grGather(&x, &y, 1, grInt32, 0, stale, GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grGather: communicator is not live")) << LastError();
  EXPECT_EQ(grBarrier(GR_COMM_NULL, GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grBarrier")) << LastError();
}

TEST(ApiCollTest, ArgumentsBeforeStreamAndOutputsUntouched) {
  std::vector<int> in(4, 3), out(4, -1);
  // A bad argument with a device stream is the argument's error.
  EXPECT_EQ(grAlltoall(in.data(), out.data(), 4, static_cast<grDataType_t>(42), grCommWorld(), kDeviceStream),
            grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grAlltoall: datatype 42 is not a grDataType_t")) << LastError();
  EXPECT_EQ(grReduce(in.data(), out.data(), 4, grInt32, static_cast<grRedOp_t>(9), 0, grCommWorld(), kDeviceStream),
            grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grReduce: reduction operation 9")) << LastError();
  EXPECT_EQ(grGatherv(in.data(), 4, out.data(), nullptr, nullptr, grInt32, 1, grCommWorld(), GR_STREAM_HOST),
            grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grGatherv: root 1 is outside the communicator's ranks [0, 1)")) << LastError();
  EXPECT_EQ(grAllgather(in.data() + 1, in.data(), 2, grInt32, grCommWorld(), GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grAllgather: sendbuf")) << LastError();
  EXPECT_TRUE(Contains(LastError(), "not in place")) << LastError();
  EXPECT_EQ(grScatter(nullptr, out.data(), 4, grInt32, 0, grCommWorld(), GR_STREAM_HOST), grInvalidArgument);
  EXPECT_TRUE(Contains(LastError(), "grScatter: sendbuf at the root is null")) << LastError();
  // Valid host buffers on a device stream: unsupported, saying streams order device work.
  EXPECT_EQ(grAlltoall(in.data(), out.data(), 4, grInt32, grCommWorld(), kDeviceStream), grUnsupported);
  EXPECT_TRUE(Contains(LastError(), "grAlltoall: a stream orders device work")) << LastError();
  EXPECT_TRUE(Contains(LastError(), "host memory")) << LastError();
  EXPECT_EQ(grBarrier(grCommWorld(), kDeviceStream), grUnsupported);  // no CUDA driver here
  EXPECT_TRUE(Contains(LastError(), "grBarrier: a barrier on a stream")) << LastError();
  EXPECT_EQ(grAllreduce(in.data(), out.data(), 4, grInt32, grSum, grCommWorld(), kDeviceStream), grUnsupported);
  EXPECT_EQ(out, std::vector<int>(4, -1));
}

TEST(ApiCollTest, PointToPointCollectivesOnOneRank) {
  grComm_t w = grCommWorld();
  std::vector<int> in = {1, 2, 3}, out(3, -1);
  ASSERT_EQ(grAlltoall(in.data(), out.data(), 3, grInt32, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, in);
  std::vector<int> buf = {4, 5};
  ASSERT_EQ(grAlltoall(buf.data(), buf.data(), 2, grInt32, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(buf, (std::vector<int>{4, 5}));
  const size_t two = 2, one = 1, zero = 0;
  out.assign(3, -1);
  ASSERT_EQ(grAlltoallv(in.data(), &two, &one, out.data(), &two, &zero, grInt32, w, GR_STREAM_HOST), grSuccess)
      << LastError();
  EXPECT_EQ(out, (std::vector<int>{2, 3, -1}));
  out.assign(3, -1);
  ASSERT_EQ(grAllgatherv(in.data(), 2, out.data(), &two, &one, grInt32, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, (std::vector<int>{-1, 1, 2}));
  out.assign(3, -1);
  ASSERT_EQ(grGather(in.data(), out.data(), 3, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, in);
  out.assign(3, -1);
  ASSERT_EQ(grGatherv(in.data(), 2, out.data(), &two, &one, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, (std::vector<int>{-1, 1, 2}));
  out.assign(3, -1);
  ASSERT_EQ(grScatter(in.data(), out.data(), 3, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, in);
  out.assign(3, -1);
  ASSERT_EQ(grScatterv(in.data(), &two, &one, out.data(), 2, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(out, (std::vector<int>{2, 3, -1}));
  // In place at the root, and counts of 0 with null buffers.
  ASSERT_EQ(grGather(in.data(), in.data(), 3, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  ASSERT_EQ(grScatter(in.data(), in.data(), 3, grInt32, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  ASSERT_EQ(grAllgatherv(in.data() + 1, 2, in.data(), &two, &one, grInt32, w, GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(in, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(grAlltoall(nullptr, nullptr, 0, grFloat64, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(grGather(nullptr, nullptr, 0, grFloat64, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(grScatterv(nullptr, &zero, &zero, nullptr, 0, grFloat64, 0, w, GR_STREAM_HOST), grSuccess) << LastError();
  EXPECT_EQ(grBarrier(w, GR_STREAM_HOST), grSuccess) << LastError();
}

TEST(ApiCollTest, RingTreeCollectivesOnOneRank) {
  std::vector<float> in = {1.5f, -2.0f}, out(2, 0.0f);
  const grResult_t r = grAllreduce(in.data(), out.data(), 2, grFloat32, grSum, grCommWorld(), GR_STREAM_HOST);
#if GPURUN_HAVE_HOST_COLL
  ASSERT_EQ(r, grSuccess) << LastError();
  EXPECT_EQ(out, in);
  ASSERT_EQ(grBcast(in.data(), 2, grFloat32, 0, grCommWorld(), GR_STREAM_HOST), grSuccess) << LastError();
  ASSERT_EQ(grReduceScatter(in.data(), out.data(), 2, grFloat32, grMax, grCommWorld(), GR_STREAM_HOST), grSuccess);
  EXPECT_EQ(out, in);
#else
  // Without coll/host the ring/tree calls are a clear grUnsupported.
  EXPECT_EQ(r, grUnsupported);
  EXPECT_TRUE(Contains(LastError(), "grAllreduce: the host collective engine (coll/host")) << LastError();
  EXPECT_EQ(out, std::vector<float>(2, 0.0f));
#endif
}

}  // namespace
