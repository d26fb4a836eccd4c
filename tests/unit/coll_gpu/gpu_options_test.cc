// The GPU executor's options from the parameter registry
// (coll/gpu/gpu_coll.h LoadGpuCollOptions): the measured defaults, overrides,
// and values the registry accepts but the kernels cannot use, which are
// errors naming the variable. Needs no GPU.
#include <gtest/gtest.h>

#include <string>

#include "coll/gpu/gpu_coll.h"
#include "runtime/base/params.h"

namespace gpurun::coll {
namespace {

class GpuOptionsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& [name, value] : {std::pair{"GPURUN_GPU_NCHANNELS", "0"},
                                      {"GPURUN_GPU_NTHREADS", "256"},
                                      {"GPURUN_GPU_BUFFSIZE", "4M"},
                                      {"GPURUN_GPU_ONESHOT_BYTES", "4M"},
                                      {"GPURUN_GPU_ONESHOT_BLOCKS", "128"}}) {
      ASSERT_TRUE(ParamRegistry::Global().Override(name, value).ok());
    }
  }
  static void Set(const char* name, const char* value) {
    const Status s = ParamRegistry::Global().Override(name, value);
    ASSERT_TRUE(s.ok()) << s.message();
  }
};

TEST_F(GpuOptionsTest, Defaults) {
  StatusOr<GpuCollOptions> o = LoadGpuCollOptions();
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->max_channels, 0) << "0: the topology chooses";
  EXPECT_EQ(o->nthreads, 256);
  EXPECT_EQ(o->buffer_bytes, kSimpleDefaultBufferBytes);
  EXPECT_EQ(o->oneshot_bytes, 4u << 20);
  EXPECT_EQ(o->oneshot_blocks, 128);
}

TEST_F(GpuOptionsTest, OverridesAreTaken) {
  Set("GPURUN_GPU_NCHANNELS", "7");
  Set("GPURUN_GPU_NTHREADS", "512");
  Set("GPURUN_GPU_BUFFSIZE", "8M");
  Set("GPURUN_GPU_ONESHOT_BYTES", "0");
  Set("GPURUN_GPU_ONESHOT_BLOCKS", "9");
  StatusOr<GpuCollOptions> o = LoadGpuCollOptions();
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->max_channels, 7);
  EXPECT_EQ(o->nthreads, 512);
  EXPECT_EQ(o->buffer_bytes, 8u << 20);
  EXPECT_EQ(o->oneshot_bytes, 0u) << "0: never one-shot";
  EXPECT_EQ(o->oneshot_blocks, 9);
}

TEST_F(GpuOptionsTest, UnusableValuesNameTheVariable) {
  Set("GPURUN_GPU_NTHREADS", "100");
  StatusOr<GpuCollOptions> o = LoadGpuCollOptions();
  ASSERT_FALSE(o.ok());
  EXPECT_NE(std::string(o.status().message()).find("GPURUN_GPU_NTHREADS=100"), std::string::npos);
  Set("GPURUN_GPU_NTHREADS", "256");
  Set("GPURUN_GPU_BUFFSIZE", "100000");
  o = LoadGpuCollOptions();
  ASSERT_FALSE(o.ok());
  EXPECT_NE(std::string(o.status().message()).find("GPURUN_GPU_BUFFSIZE=100000"), std::string::npos);
}

TEST_F(GpuOptionsTest, TheRegistryRefusesOutOfRangeValues) {
  EXPECT_FALSE(ParamRegistry::Global().Override("GPURUN_GPU_NCHANNELS", "129").ok());
  EXPECT_FALSE(ParamRegistry::Global().Override("GPURUN_GPU_NTHREADS", "1024").ok());
}

}  // namespace
}  // namespace gpurun::coll
