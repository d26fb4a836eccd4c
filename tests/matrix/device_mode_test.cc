// Unit tests of coll_matrix's device mode without a GPU: the case runner on a
// fake DeviceBuffers whose "device" memory is host memory (the call sees the
// mirror, 256-aligned plus the offset; what it writes there, guards
// included, is judged after the copy back; grUnsupported is accepted only
// where allowed and only with untouched buffers; the point-to-point
// collectives are judged as on host buffers), and the device flags.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "tests/matrix/case_runner.h"
#include "tests/matrix/device_buffer.h"
#include "tests/matrix/matrix_flags.h"

namespace gpurun::matrix {
namespace {

// Mirrors in 256-aligned host memory; counts the waits.
class FakeDevice final : public DeviceBuffers {
 public:
  ~FakeDevice() override {
    std::free(mirrors_[0]);
    std::free(mirrors_[1]);
  }
  grStream_t stream() const override { return GR_STREAM_HOST; }
  std::string Upload(Side side, const GuardedBuffer& host, unsigned char** data) override {
    unsigned char*& m = mirrors_[static_cast<int>(side)];
    std::free(m);
    m = static_cast<unsigned char*>(std::aligned_alloc(kDeviceLead, (host.image_bytes() + 255) / 256 * 256));
    std::memcpy(m, host.image(), host.image_bytes());
    *data = m + host.data_in_image();
    return "";
  }
  std::string BeginCapture() override { return "the fake device has no graphs"; }
  std::string EndCaptureAndLaunch(int) override { return "the fake device has no graphs"; }
  std::string Wait() override {
    ++waits;
    return "";
  }
  std::string Download(Side side, GuardedBuffer& host) override {
    std::memcpy(host.image(), mirrors_[static_cast<int>(side)], host.image_bytes());
    return "";
  }
  std::string Describe() const override { return "fake"; }

  int waits = 0;

 private:
  unsigned char* mirrors_[2] = {nullptr, nullptr};
};

using Act = std::function<grResult_t(const int32_t* send, int32_t* recv)>;

// A one-rank allreduce (or c_.coll) of 1000 int32 at offset 4 on the fake device.
class DeviceCall : public ::testing::Test {
 protected:
  DeviceCall() : patterns_(1), reporter_(0, 0) {
    x_.patterns = &patterns_;
    x_.device = &device_;
    c_.type = grInt32;
    c_.count = 1000;
    c_.bytes = 4000;
    c_.offset = 4;
  }
  uint64_t Failures(const Act& act) {
    Plan p = MakePlan(c_, x_);
    p.call = [act](const void* s, void* r) { return act(static_cast<const int32_t*>(s), static_cast<int32_t*>(r)); };
    CaseRunner runner(x_, reporter_);
    const uint64_t before = reporter_.failures();
    runner.RunPlan(c_, p);
    return reporter_.failures() - before;
  }
  static grResult_t Copy(const int32_t* s, int32_t* r) {
    std::memcpy(r, s, 4000);
    return grSuccess;
  }

  FakeDevice device_;
  PatternCache patterns_;
  Reporter reporter_;
  PlanContext x_;
  Case c_;
};

TEST_F(DeviceCall, SeesTheMirrorAndIsJudgedAfterTheCopyBack) {
  EXPECT_EQ(Failures([](const int32_t* s, int32_t* r) {
              EXPECT_EQ(reinterpret_cast<uintptr_t>(r) % kDeviceLead, 4u);
              EXPECT_EQ(reinterpret_cast<uintptr_t>(s) % kDeviceLead, 4u);
              return Copy(s, r);
            }),
            0u);
  EXPECT_EQ(device_.waits, 1);
  EXPECT_EQ(Failures([](const int32_t* s, int32_t* r) {
              Copy(s, r);
              r[1000] = 0;  // past the end
              return grSuccess;
            }),
            1u);
  EXPECT_EQ(Failures([](const int32_t* s, int32_t* r) {
              Copy(s, r);
              *(reinterpret_cast<unsigned char*>(r) - kDeviceLead) = 0;  // in the mirror's lead guard
              return grSuccess;
            }),
            1u);
  EXPECT_EQ(Failures([](const int32_t*, int32_t*) { return grSuccess; }), 1u);  // nothing written
}

TEST_F(DeviceCall, UnsupportedOnlyWhereAllowedAndUntouched) {
  const auto unsupported = [](const int32_t*, int32_t*) { return grUnsupported; };
  EXPECT_EQ(Failures(unsupported), 1u);  // allreduce is required
  x_.may_be_unsupported = {Coll::kAllreduce};
  EXPECT_EQ(Failures(unsupported), 0u);
  EXPECT_EQ(reporter_.unsupported(), 1u);
  EXPECT_EQ(Failures([](const int32_t*, int32_t* r) {
              r[0] = 7;
              return grUnsupported;
            }),
            1u);
}

// The collectives over point-to-point run on device buffers and are judged
// exactly as on host buffers: grUnsupported is a failure unless the job
// allows it, a wrong element is one, and a forced algorithm or protocol does
// not reject them (a grInvalidUsage is a failure).
TEST_F(DeviceCall, PointToPointCollectivesMustRunExactly) {
  c_.coll = Coll::kAlltoall;  // one rank: its one block goes to itself
  EXPECT_EQ(Failures(Copy), 0u);
  EXPECT_EQ(reporter_.checks(), 1u);
  EXPECT_EQ(Failures([](const int32_t*, int32_t*) { return grUnsupported; }), 1u);
  EXPECT_EQ(reporter_.unsupported(), 0u);
  EXPECT_EQ(Failures([](const int32_t* s, int32_t* r) {
              Copy(s, r);
              r[500] ^= 1;
              return grSuccess;
            }),
            1u);
  for (Algo a : {Algo::kRing, Algo::kTree, Algo::kOneShot, Algo::kTwoShot}) {
    for (Proto p : {Proto::kLL, Proto::kLL128, Proto::kSimple}) {
      c_.algo = a;
      c_.proto = p;
      EXPECT_EQ(Failures(Copy), 0u) << AlgoName(a) << " " << ProtoName(p);
      EXPECT_EQ(Failures([](const int32_t*, int32_t*) { return grInvalidUsage; }), 1u)
          << AlgoName(a) << " " << ProtoName(p);
    }
  }
  EXPECT_EQ(reporter_.skipped(), 0u);
}

std::optional<Flags> Parse(std::vector<std::string> args, std::string* error) {
  args.insert(args.begin(), "coll_matrix");
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (std::string& a : args) argv.push_back(a.data());
  return ParseFlags(static_cast<int>(argv.size()), argv.data(), error);
}

TEST(DeviceFlags, BothFormsAndStrictness) {
  std::string error;
  std::optional<Flags> f =
      Parse({"--device", "cuda", "--stream", "--device-collectives", "allreduce,reduce", "--types=int8"}, &error);
  ASSERT_TRUE(f) << error;
  EXPECT_TRUE(f->on_device);
  EXPECT_TRUE(f->stream);
  EXPECT_EQ(f->device_colls, (std::vector<Coll>{Coll::kAllreduce, Coll::kReduce}));
  EXPECT_EQ(f->types, std::vector<grDataType_t>{grInt8});
  f = Parse({"--device=cuda", "--device-collectives=none"}, &error);
  ASSERT_TRUE(f) << error;
  EXPECT_TRUE(f->device_colls.empty());
  f = Parse({}, &error);
  ASSERT_TRUE(f) << error;
  EXPECT_FALSE(f->on_device);
  EXPECT_FALSE(Parse({"--stream"}, &error));
  EXPECT_NE(error.find("--device=cuda"), std::string::npos) << error;
  EXPECT_FALSE(Parse({"--device-collectives=allreduce"}, &error));
  EXPECT_FALSE(Parse({"--device=gpu"}, &error));
  EXPECT_FALSE(Parse({"--device"}, &error));
}

TEST(DeviceFlags, GraphNeedsTheDeviceAndAStream) {
  std::string error;
  std::optional<Flags> f = Parse({"--device=cuda", "--stream", "--graph"}, &error);
  ASSERT_TRUE(f) << error;
  EXPECT_TRUE(f->graph);
  EXPECT_FALSE(Parse({"--device=cuda", "--graph"}, &error));
  EXPECT_NE(error.find("--graph needs --stream"), std::string::npos) << error;
  EXPECT_FALSE(Parse({"--graph"}, &error));
  EXPECT_NE(error.find("--device=cuda"), std::string::npos) << error;
}

}  // namespace
}  // namespace gpurun::matrix
