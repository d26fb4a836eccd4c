// PCI bus id parsing and canonical spelling.
#include "topo/pci_bus_id.h"

#include <gtest/gtest.h>

namespace gpurun::topo {
namespace {

TEST(PciBusId, NormalisesCudaNvmlAndShortSpellings) {
  EXPECT_EQ(*NormalizePciBusId("0000:18:00.0"), "0000:18:00.0");          // CUDA
  EXPECT_EQ(*NormalizePciBusId("00000000:1B:00.0"), "0000:1b:00.0");      // NVML, nvidia-smi
  EXPECT_EQ(*NormalizePciBusId("0000:1B:00.0"), "0000:1b:00.0");          // NVML legacy
  EXPECT_EQ(*NormalizePciBusId("1b:00.0"), "0000:1b:00.0");               // no domain
  EXPECT_EQ(*NormalizePciBusId("1:a:1F.7"), "0001:0a:1f.7");              // short fields
  EXPECT_EQ(*NormalizePciBusId("12345678:ff:00.0"), "12345678:ff:00.0");  // wide domain kept
}

TEST(PciBusId, RejectsMalformedText) {
  for (const char* bad : {"", "0000:18:00", "0000:18:00.", "0000:18:20.0", "0000:18:00.8", "000000000:18:00.0",
                          "0000:118:00.0", " 0000:18:00.0", "0000:18:00.0 ", "0000:18:00.0x", "g000:18:00.0",
                          "0000::00.0", "a:b:c:d.0", "0000:18.00.0", "0000:18:000.0", "-1:18:00.0"}) {
    EXPECT_FALSE(ParsePciBusId(bad).has_value()) << bad;
    const StatusOr<std::string> normal = NormalizePciBusId(bad);
    ASSERT_FALSE(normal.ok()) << bad;
    EXPECT_EQ(normal.status().code(), grInvalidArgument);
    EXPECT_NE(normal.status().message().find(std::string("'") + bad + "'"), std::string::npos);
  }
}

TEST(PciBusId, RoundTripsEveryBusDeviceFunction) {
  for (uint32_t domain : {0u, 1u, 0xffffu}) {
    for (uint32_t bus = 0; bus <= 0xff; ++bus) {
      for (uint32_t device = 0; device <= 0x1f; ++device) {
        for (uint32_t function = 0; function <= 7; ++function) {
          const PciAddress address{domain, bus, device, function};
          const std::string text = FormatPciBusId(address);
          ASSERT_EQ(text.size(), 12u) << text;
          const std::optional<PciAddress> parsed = ParsePciBusId(text);
          ASSERT_TRUE(parsed.has_value()) << text;
          ASSERT_EQ(*parsed, address) << text;
        }
      }
    }
  }
}

TEST(PciBusId, OrdersByDomainBusDeviceFunction) {
  EXPECT_LT((PciAddress{0, 0x18, 0, 0}), (PciAddress{0, 0x19, 0, 0}));
  EXPECT_LT((PciAddress{0, 0xff, 0x1f, 7}), (PciAddress{1, 0, 0, 0}));
  EXPECT_LT((PciAddress{0, 0x18, 0, 7}), (PciAddress{0, 0x18, 1, 0}));
  EXPECT_LT((PciAddress{0, 0x18, 1, 0}), (PciAddress{0, 0x18, 1, 1}));
}

}  // namespace
}  // namespace gpurun::topo
