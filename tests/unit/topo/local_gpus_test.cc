// GPU discovery and hwloc lookups: on a machine without GPU (CI) discovery
// returns nothing and no error; on a GPU machine the fields are checked.
#include "topo/local_gpus.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "topo/hwloc_locality.h"
#include "topo/pci_bus_id.h"

namespace gpurun::topo {
namespace {

TEST(LocalGpus, DiscoveryNeverFailsForLackOfGpus) {
  const StatusOr<std::vector<GpuInfo>> gpus = DiscoverLocalGpus();
  ASSERT_TRUE(gpus.ok()) << gpus.status().ToString();
  for (size_t i = 0; i < gpus->size(); ++i) {
    const GpuInfo& gpu = (*gpus)[i];
    EXPECT_EQ(gpu.cuda_ordinal, static_cast<int>(i));
    EXPECT_EQ(*NormalizePciBusId(gpu.bus_id), gpu.bus_id) << "canonical spelling";
    EXPECT_FALSE(gpu.name.empty());
    EXPECT_GT(gpu.sm_count, 0);
    EXPECT_GT(gpu.cc_major, 0);
    EXPECT_GT(gpu.total_memory, 0u);
    ASSERT_EQ(gpu.nvlinks.size(), gpus->size());
    EXPECT_EQ(gpu.nvlinks[i], 0);
    for (size_t j = 0; j < gpus->size(); ++j) EXPECT_EQ(gpu.nvlinks[j], (*gpus)[j].nvlinks[i]) << "symmetric";
  }
}

TEST(LocalGpus, PeerAccessOnThisMachine) {
  const StatusOr<std::vector<GpuInfo>> gpus = DiscoverLocalGpus();
  ASSERT_TRUE(gpus.ok());
  const StatusOr<bool> bogus = PeerAccess(-1, 0);
  EXPECT_FALSE(bogus.ok());
  if (gpus->empty()) {
    // No device: ordinal 0 is as unknown as -1 (or the build has no CUDA).
    const StatusOr<bool> none = PeerAccess(0, 1);
    ASSERT_FALSE(none.ok());
    EXPECT_TRUE(none.status().code() == grInvalidArgument || none.status().code() == grUnsupported)
        << none.status().ToString();
    return;
  }
  const StatusOr<bool> self = PeerAccess(0, 0);
  ASSERT_TRUE(self.ok()) << self.status().ToString();
  EXPECT_TRUE(*self);
  for (int a = 0; a < static_cast<int>(gpus->size()); ++a) {
    for (int b = 0; b < static_cast<int>(gpus->size()); ++b) {
      EXPECT_TRUE(PeerAccess(a, b).ok()) << a << "," << b;
    }
  }
}

TEST(PciTopology, LoadsAndRejectsUnknownOrMalformedIds) {
  const StatusOr<PciTopology> topology = PciTopology::Load();
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  const StatusOr<PciLocality> absent = topology->Locate("ffff:ff:1f.7");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), grUnsupported);
  const StatusOr<PciLocality> malformed = topology->Locate("not-a-bus-id");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), grInvalidArgument);
}

// Every PCI device sysfs lists either has a locality with CPUs or is one that
// the KEEP_IMPORTANT filter drops (bridges, host devices) or hwloc cannot see.
TEST(PciTopology, LocatesThePciDevicesOfThisMachine) {
  const StatusOr<PciTopology> topology = PciTopology::Load();
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  std::error_code error;
  int located = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/bus/pci/devices", error)) {
    const std::string id = entry.path().filename().string();
    const StatusOr<PciLocality> locality = topology->Locate(id);
    if (!locality.ok()) {
      EXPECT_EQ(locality.status().code(), grUnsupported) << id << ": " << locality.status().ToString();
      continue;
    }
    ++located;
    EXPECT_FALSE(locality->cpus.empty()) << id;
    EXPECT_GE(locality->numa_node, kUnknown) << id;
  }
  std::printf("hwloc located %d PCI device(s)\n", located);
}

}  // namespace
}  // namespace gpurun::topo
