// The pure decisions behind --device cuda and --compare nccl: which GPU a
// rank takes, NCCL_NVLS_ENABLE's policy, NCCL's version text and the launch line.
#include "bench/device_setup.h"

#include <gtest/gtest.h>

namespace {

TEST(PickDevice, LocalRankModuloTheDevices) {
  EXPECT_EQ(*PickDevice(std::nullopt, 2), 0);
  EXPECT_EQ(*PickDevice("0", 2), 0);
  EXPECT_EQ(*PickDevice("1", 2), 1);
  EXPECT_EQ(*PickDevice("5", 2), 1);
  EXPECT_EQ(*PickDevice("7", 8), 7);
  EXPECT_EQ(*PickDevice("3", 1), 0);
}

TEST(PickDevice, BadValuesAndNoDeviceAreErrors) {
  EXPECT_FALSE(PickDevice("-1", 2).ok());
  EXPECT_FALSE(PickDevice("one", 2).ok());
  EXPECT_FALSE(PickDevice("", 2).ok());
  const auto none = PickDevice("0", 0);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no CUDA device"), std::string::npos) << none.status().message();
  const auto bad = PickDevice("x1", 2);
  EXPECT_NE(bad.status().message().find("GPURUN_LOCAL_RANK"), std::string::npos) << bad.status().message();
}

TEST(Nvls, UnsetIsSetZeroIsKeptAnythingElseRefused) {
  EXPECT_TRUE(*NvlsNeedsSetting(std::nullopt));
  EXPECT_FALSE(*NvlsNeedsSetting("0"));
  for (const char* value : {"1", "2", "", "false", " 0"}) {
    const auto decision = NvlsNeedsSetting(std::string(value));
    ASSERT_FALSE(decision.ok()) << "'" << value << "'";
    EXPECT_NE(decision.status().message().find("NCCL_NVLS_ENABLE"), std::string::npos);
  }
}

TEST(NcclVersion, BothEncodings) {
  EXPECT_EQ(NcclVersionText(22809), "2.28.9");
  EXPECT_EQ(NcclVersionText(21903), "2.19.3");
  EXPECT_EQ(NcclVersionText(20900), "2.9.0");
  EXPECT_EQ(NcclVersionText(2708), "2.7.8");  // before 2.9: major * 1000 + minor * 100 + patch
}

TEST(LaunchLine, StatesProcessesLaunchesAndOrdering) {
  EXPECT_EQ(LaunchLine(2, 2, false, false),
            "launch: one process per GPU, eager launches (no CUDA graph), stream-ordered");
  EXPECT_EQ(LaunchLine(1, 8, false, false),
            "launch: one process per GPU, eager launches (no CUDA graph), stream-ordered");
  const std::string blocking = LaunchLine(2, 2, true, false);
  EXPECT_EQ(blocking.rfind("launch: one process per GPU, eager launches (no CUDA graph), blocking", 0), 0u) << blocking;
  EXPECT_NE(LaunchLine(4, 2, false, false).find("4 processes per node sharing 2 GPU(s)"), std::string::npos);
  const std::string graph = LaunchLine(2, 2, false, true);
  EXPECT_NE(graph.find("replayed from one CUDA graph"), std::string::npos) << graph;
  EXPECT_EQ(graph.find("eager launches"), std::string::npos) << graph;
}

}  // namespace
