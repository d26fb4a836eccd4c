// The ring facts of topo/ring_links.h from made-up link lists.
#include "topo/ring_links.h"

#include <gtest/gtest.h>

#include <map>

#include "topo/gpu_info.h"
#include "topo/ring_hints.h"

namespace gpurun::topo {
namespace {

const std::string kA = "0000:18:00.0";
const std::string kB = "0000:2a:00.0";
const std::string kC = "0000:3b:00.0";

std::vector<NvLinkEnd> Direct(const std::string& to, int count) {
  std::vector<NvLinkEnd> links;
  for (int l = 0; l < count; ++l) links.push_back(NvLinkEnd{l, NvLinkPeerKind::kGpu, to});
  return links;
}

// A node of three GPUs: A-B 18 links, B-C 4 links, C-A 2 links.
NvLinksOf ThreeGpus() {
  return [](const std::string& id) -> std::optional<std::vector<NvLinkEnd>> {
    std::map<std::string, std::vector<NvLinkEnd>> m;
    auto add = [&](const std::string& a, const std::string& b, int n) {
      for (const NvLinkEnd& e : Direct(b, n)) m[a].push_back(e);
      for (const NvLinkEnd& e : Direct(a, n)) m[b].push_back(e);
    };
    add(kA, kB, 18);
    add(kB, kC, 4);
    add(kC, kA, 2);
    return m[id];
  };
}

TEST(NarrowestRingHop, TheSmallestHopBetweenTwoGpusCounts) {
  EXPECT_EQ(NarrowestRingHop({kA, kB}, {0, 1}, ThreeGpus()), 18);
  EXPECT_EQ(NarrowestRingHop({kA, kB, kC}, {0, 1, 2}, ThreeGpus()), 2) << "C back to A closes the ring";
  EXPECT_EQ(NarrowestRingHop({kB, kC}, {0, 1}, ThreeGpus()), 4);
}

TEST(NarrowestRingHop, HopsInsideOneGpuAreSkipped) {
  EXPECT_EQ(NarrowestRingHop({kA, kA, kB, kB}, {0, 1, 2, 3}, ThreeGpus()), 18);
  EXPECT_EQ(NarrowestRingHop({kA, kA, kA}, {0, 1, 2}, ThreeGpus()), kNoGpuHop);
  EXPECT_EQ(NarrowestRingHop({"18:00.0", "0000:18:00.0"}, {0, 1}, ThreeGpus()), kNoGpuHop)
      << "two spellings of one GPU";
}

TEST(NarrowestRingHop, PcieOnlyAndUnknown) {
  const NvLinksOf none = [](const std::string&) {
    return std::optional<std::vector<NvLinkEnd>>(std::vector<NvLinkEnd>{});
  };
  EXPECT_EQ(NarrowestRingHop({kA, kB}, {0, 1}, none), 0);
  const NvLinksOf unknown = [](const std::string&) { return std::optional<std::vector<NvLinkEnd>>(); };
  EXPECT_EQ(NarrowestRingHop({kA, kB}, {0, 1}, unknown), kUnknown);
  EXPECT_EQ(NarrowestRingHop({kA, kA}, {0, 1}, unknown), kNoGpuHop) << "links not needed inside one GPU";
}

TEST(MostRanksPerGpu, CountsSpellingsOfOneGpuTogether) {
  EXPECT_EQ(MostRanksPerGpu({}), 0);
  EXPECT_EQ(MostRanksPerGpu({kA, kB}), 1);
  EXPECT_EQ(MostRanksPerGpu({kA, kB, "18:00.0", kB, kA}), 3);
}

}  // namespace
}  // namespace gpurun::topo
