// NVLink count matrices from made-up link lists.
#include "topo/nvlink_matrix.h"

#include <gtest/gtest.h>

#include "topo/gpu_info.h"

namespace gpurun::topo {
namespace {

using Links = std::optional<std::vector<NvLinkEnd>>;

std::vector<NvLinkEnd> LinksTo(const std::string& bus_id, int count, NvLinkPeerKind kind, int first_link = 0) {
  std::vector<NvLinkEnd> links;
  links.reserve(count);
  for (int l = 0; l < count; ++l) links.push_back(NvLinkEnd{first_link + l, kind, bus_id});
  return links;
}

TEST(NvLinkMatrix, TwoGpusBridgedByEighteenLinks) {
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0"};
  const auto counts =
      CountNvLinks(ids, {LinksTo(ids[1], 18, NvLinkPeerKind::kGpu), LinksTo(ids[0], 18, NvLinkPeerKind::kGpu)});
  EXPECT_EQ(counts, (std::vector<std::vector<int>>{{0, 18}, {18, 0}}));
}

TEST(NvLinkMatrix, UnknownKindCountsAsDirectWhenTheFarEndIsALocalGpu) {
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0"};
  const auto counts =
      CountNvLinks(ids, {LinksTo(ids[1], 4, NvLinkPeerKind::kUnknown), LinksTo(ids[0], 4, NvLinkPeerKind::kUnknown)});
  EXPECT_EQ(counts[0][1], 4);
  EXPECT_EQ(counts[1][0], 4);
}

TEST(NvLinkMatrix, NvSwitchSystemGivesEveryPairTheSmallerSwitchLinkCount) {
  std::vector<std::string> ids;
  std::vector<Links> links;
  for (int g = 0; g < 8; ++g) {
    ids.push_back("0000:" + std::to_string(10 + g) + ":00.0");
    // Four switches; GPU 7 has lost two of its links.
    const int count = g == 7 ? 16 : 18;
    std::vector<NvLinkEnd> ends;
    ends.reserve(count);
    for (int l = 0; l < count; ++l) {
      ends.push_back(NvLinkEnd{l, NvLinkPeerKind::kSwitch, "0000:c" + std::to_string(l % 4) + ":00.0"});
    }
    links.push_back(std::move(ends));
  }
  const auto counts = CountNvLinks(ids, links);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(counts[i][j], i == j ? 0 : (i == 7 || j == 7) ? 16 : 18) << i << "," << j;
    }
  }
}

TEST(NvLinkMatrix, PcieOnlyGpusHaveNoLinks) {
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0", "0000:3b:00.0"};
  const auto counts = CountNvLinks(ids, {std::vector<NvLinkEnd>{}, std::vector<NvLinkEnd>{}, std::vector<NvLinkEnd>{}});
  EXPECT_EQ(counts, (std::vector<std::vector<int>>(3, std::vector<int>(3, 0))));
}

TEST(NvLinkMatrix, UnknownLinksMakeTheirRowAndColumnUnknown) {
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0", "0000:3b:00.0"};
  const auto counts = CountNvLinks(
      ids, {LinksTo(ids[1], 6, NvLinkPeerKind::kGpu), LinksTo(ids[0], 6, NvLinkPeerKind::kGpu), std::nullopt});
  EXPECT_EQ(counts, (std::vector<std::vector<int>>{{0, 6, kUnknown}, {6, 0, kUnknown}, {kUnknown, kUnknown, 0}}));
  EXPECT_EQ(CountNvLinks({ids[0]}, {std::nullopt}), (std::vector<std::vector<int>>{{0}}));
  EXPECT_TRUE(CountNvLinks({}, {}).empty());
}

TEST(NvLinkMatrix, LinksToHiddenGpusAreIgnored) {
  // GPU 0 also has 6 links to a GPU this process does not see.
  const std::vector<std::string> ids = {"0000:18:00.0", "0000:2a:00.0"};
  std::vector<NvLinkEnd> first = LinksTo(ids[1], 6, NvLinkPeerKind::kGpu);
  for (const NvLinkEnd& end : LinksTo("0000:4c:00.0", 6, NvLinkPeerKind::kGpu, 6)) first.push_back(end);
  const auto counts = CountNvLinks(ids, {first, LinksTo(ids[0], 6, NvLinkPeerKind::kGpu)});
  EXPECT_EQ(counts[0][1], 6);
  EXPECT_EQ(counts[1][0], 6);
}

}  // namespace
}  // namespace gpurun::topo
