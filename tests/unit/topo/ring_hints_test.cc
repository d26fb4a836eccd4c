// Ring channel table and ring order over 1..8 ranks with shared GPUs.
#include "topo/ring_hints.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "topo/gpu_info.h"
#include "topo/pci_bus_id.h"

namespace gpurun::topo {
namespace {

GpuRingShape Shape(int links, int ranks_per_gpu = 1, bool host = false, int sms = 132) {
  GpuRingShape s;
  s.narrowest_nvlinks = links;
  s.ranks_per_gpu = ranks_per_gpu;
  s.host_path = host;
  s.sm_count = sms;
  return s;
}

TEST(GpuRingChannels, TableRows) {
  EXPECT_EQ(GpuRingChannels(Shape(18)), 128) << "2x H200 NV18, measured";
  EXPECT_EQ(GpuRingChannels(Shape(24)), 128) << "more links: the same cap";
  EXPECT_EQ(GpuRingChannels(Shape(kUnknown)), 128) << "no NVML: as NVLink";
  EXPECT_EQ(GpuRingChannels(Shape(kNoGpuHop)), 128) << "one GPU";
  EXPECT_EQ(GpuRingChannels(Shape(0)), 32) << "PCIe only";
  EXPECT_EQ(GpuRingChannels(Shape(18, 1, true)), 32) << "host memory path";
  EXPECT_EQ(GpuRingChannels(Shape(1)), 32) << "128 x 1 / 18 = 7.1, at least the PCIe row";
  EXPECT_EQ(GpuRingChannels(Shape(4)), 32) << "128 x 4 / 18 = 28.4 -> 32";
  EXPECT_EQ(GpuRingChannels(Shape(9)), 64);
  EXPECT_EQ(GpuRingChannels(Shape(17)), 120);
}

TEST(GpuRingChannels, SharedGpusAndSmallGpus) {
  EXPECT_EQ(GpuRingChannels(Shape(18, 2)), 64) << "two ranks per GPU share its SMs";
  EXPECT_EQ(GpuRingChannels(Shape(kNoGpuHop, 4)), 32);
  EXPECT_EQ(GpuRingChannels(Shape(0, 4)), 8) << "32 / 4 ranks";
  EXPECT_EQ(GpuRingChannels(Shape(0, 8)), 8) << "never below 8 while the SMs allow";
  EXPECT_EQ(GpuRingChannels(Shape(18, 1, false, 40)), 40) << "capped at the SMs";
  EXPECT_EQ(GpuRingChannels(Shape(18, 1, false, 4)), 4);
  EXPECT_EQ(GpuRingChannels(Shape(18, 1, false, 0)), 128) << "SMs unknown: no cap";
  EXPECT_EQ(GpuRingChannels(Shape(18, 0)), 128) << "ranks per GPU below 1 read as 1";
}

TEST(GpuRingChannels, NonDecreasingInLinksAndBounded) {
  for (int sms : {0, 1, 4, 16, 40, 78, 108, 132, 1000}) {
    for (int per_gpu : {1, 2, 3, 8}) {
      int previous = 0;
      for (int links = 0; links <= 40; ++links) {
        const int channels = GpuRingChannels(Shape(links, per_gpu, false, sms));
        EXPECT_GE(channels, 1);
        EXPECT_LE(channels, kMaxGpuRingChannels);
        if (sms > 0) {
          EXPECT_LE(channels, sms);
        }
        EXPECT_GE(channels, previous) << "links " << links << " sms " << sms << " per GPU " << per_gpu;
        previous = channels;
      }
    }
  }
}

std::string BusId(int gpu) { return FormatPciBusId(PciAddress{0, static_cast<uint32_t>(0x18 + 0x11 * gpu), 0, 0}); }

// Every property RingOrder promises, for one input.
void CheckRing(const std::vector<std::string>& ids) {
  SCOPED_TRACE(::testing::PrintToString(ids));
  const std::vector<int> order = RingOrder(ids);
  const int n = static_cast<int>(ids.size());
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> identity(n);
  std::iota(identity.begin(), identity.end(), 0);
  ASSERT_EQ(sorted, identity) << "a permutation of the ranks";
  if (n == 0) return;
  EXPECT_EQ(order[0], 0) << "starts at rank 0";

  // Ranks sharing a GPU are consecutive and in rank order.
  std::vector<std::string> groups;  // group ids in ring order
  for (int k = 0; k < n; ++k) {
    const std::string& id = ids[order[k]];
    if (groups.empty() || groups.back() != id) {
      EXPECT_EQ(std::count(groups.begin(), groups.end(), id), 0) << id << " split";
      groups.push_back(id);
    } else {
      EXPECT_LT(order[k - 1], order[k]) << "ties in rank order";
    }
  }
  // Groups follow PCI order, up to the rotation to rank 0.
  std::vector<std::string> by_address = groups;
  std::sort(by_address.begin(), by_address.end(),
            [](const std::string& a, const std::string& b) { return *ParsePciBusId(a) < *ParsePciBusId(b); });
  std::rotate(by_address.begin(), std::find(by_address.begin(), by_address.end(), ids[0]), by_address.end());
  EXPECT_EQ(groups, by_address);
}

TEST(RingOrder, OneToEightRanksOverSharedGpus) {
  for (int n = 1; n <= 8; ++n) {
    for (int gpus = 1; gpus <= n; ++gpus) {
      std::vector<std::string> round_robin, blocked, reversed, scrambled;
      for (int r = 0; r < n; ++r) {
        round_robin.push_back(BusId(r % gpus));              // local rank modulo GPUs
        blocked.push_back(BusId(r * gpus / n));              // consecutive ranks share
        reversed.push_back(BusId(gpus - 1 - r % gpus));      // PCI order against rank order
        scrambled.push_back(BusId((r * 5 + 3) % 7 % gpus));  // irregular
      }
      CheckRing(round_robin);
      CheckRing(blocked);
      CheckRing(reversed);
      CheckRing(scrambled);
    }
  }
}

TEST(RingOrder, Examples) {
  const std::string a = "0000:18:00.0", b = "0000:2a:00.0", c = "0000:3b:00.0";
  EXPECT_EQ(RingOrder({}), std::vector<int>{});
  EXPECT_EQ(RingOrder({a}), std::vector<int>{0});
  EXPECT_EQ(RingOrder({a, b, c}), (std::vector<int>{0, 1, 2})) << "already in PCI order";
  EXPECT_EQ(RingOrder({a, b, a, b}), (std::vector<int>{0, 2, 1, 3})) << "modulo placement regrouped";
  EXPECT_EQ(RingOrder({c, a, b}), (std::vector<int>{0, 1, 2})) << "same ring as 1 2 0";
  EXPECT_EQ(RingOrder({b, c, a, a}), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(RingOrder({b, a, c, a}), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(RingOrder({"00000000:2A:00.0", "0000:18:00.0", "2a:00.0"}), (std::vector<int>{0, 2, 1}))
      << "spellings of one GPU group together";
}

TEST(RingOrder, RanksWithoutGpuGoLastGroupedByText) {
  const std::string a = "0000:18:00.0", b = "0000:2a:00.0";
  EXPECT_EQ(RingOrder({"", b, "", a}), (std::vector<int>{0, 2, 3, 1}));
  EXPECT_EQ(RingOrder({b, "", "x", "", a}), (std::vector<int>{0, 1, 3, 2, 4}));
  EXPECT_EQ(RingOrder({"", "", ""}), (std::vector<int>{0, 1, 2}));
}

TEST(RingOrderFor, SettingPicksPciRankOrAPermutation) {
  const std::string a = "0000:18:00.0", b = "0000:2a:00.0";
  const std::vector<std::string> ids = {a, b, a, b};
  const std::vector<int> one = {0, 0, 0, 0};
  EXPECT_EQ(*RingOrderFor("", one, ids), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(*RingOrderFor("pci", one, ids), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(*RingOrderFor("rank", one, ids), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*RingOrderFor("3, 1,0,2", one, ids), (std::vector<int>{3, 1, 0, 2}));
  // A list for another communicator size leaves this one in PCI order.
  EXPECT_EQ(*RingOrderFor("1,0", one, ids), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(*RingOrderFor("1,0", {0, 0}, {a, b}), (std::vector<int>{1, 0}));
}

// Across hosts each host's ranks sit together (the same bus id on two
// hosts is two GPUs), in PCI order within the host, hosts by lowest rank.
TEST(RingOrderAcrossHosts, EachHostsRanksTogether) {
  const std::string a = "0000:18:00.0", b = "0000:2a:00.0";
  EXPECT_EQ(RingOrderAcrossHosts({0, 1, 0, 1}, {a, a, a, a}), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(RingOrderAcrossHosts({0, 0, 1, 1}, {b, a, b, a}), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(RingOrderAcrossHosts({1, 0, 1, 0}, {b, b, a, a}), (std::vector<int>{0, 2, 1, 3}))
      << "host 1 first: it has rank 0; within it a (rank 2) follows b (rank 0) round the ring";
  EXPECT_EQ(RingOrderAcrossHosts({0, 0, 0}, {b, a, b}), RingOrder({b, a, b})) << "one host: RingOrder";
  EXPECT_EQ(*RingOrderFor("", {0, 1, 0, 1}, {a, b, b, a}), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(*RingOrderFor("rank", {0, 1, 0, 1}, {a, b, b, a}), (std::vector<int>{0, 1, 2, 3}))
      << "an explicit order wins";
}

TEST(RingOrderFor, AnythingElseIsAnErrorNamingTheSetting) {
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0", "0000:18:00.0"};
  for (const char* bad : {"0,0,1", "0,1,3", "a,b,c", "0,,1", "-1,0,1", "pcie", "0;1;2"}) {
    const auto order = RingOrderFor(bad, {0, 0, 0}, ids);
    ASSERT_FALSE(order.ok()) << bad;
    EXPECT_EQ(order.status().code(), grInvalidArgument) << bad;
    EXPECT_NE(order.status().message().find(bad), std::string::npos) << order.status().message();
  }
}

}  // namespace
}  // namespace gpurun::topo
