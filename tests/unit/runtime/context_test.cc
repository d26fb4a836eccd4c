// Context over the in-process bootstrap: the peer table every rank builds at
// init is complete and consistent, for 1..16 ranks and several node layouts.
#include "runtime/context.h"

#include <gtest/gtest.h>

#include <thread>

#include "runtime/bootstrap/inproc_bootstrap.h"

namespace gpurun {
namespace {

struct Layout {
  int size;
  int ranks_per_node;
};

class ContextTest : public ::testing::TestWithParam<Layout> {};

TEST_P(ContextTest, EveryRankBuildsTheSamePeerTable) {
  const auto [size, per_node] = GetParam();
  StatusOr<InprocGroup> group = InprocGroup::Create(size, {.ranks_per_node = per_node, .timeout_s = 30.0});
  ASSERT_TRUE(group.ok()) << group.status().ToString();
  std::vector<std::unique_ptr<Bootstrap>> boots = group->TakeAll();
  ASSERT_EQ(static_cast<int>(boots.size()), size);
  std::vector<std::vector<PeerInfo>> tables(size);
  std::vector<Status> errors(size);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      StatusOr<std::unique_ptr<Context>> ctx = Context::CreateWith(std::move(boots[r]));
      if (!ctx.ok()) {
        errors[r] = ctx.status();
        return;
      }
      tables[r] = (*ctx)->peers();
      EXPECT_EQ((*ctx)->world()->rank, r);
      EXPECT_EQ((*ctx)->world()->size, size);
      errors[r] = (*ctx)->Finalize();
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < size; ++r) {
    ASSERT_TRUE(errors[r].ok()) << "rank " << r << ": " << errors[r].ToString();
    ASSERT_EQ(static_cast<int>(tables[r].size()), size);
    for (int p = 0; p < size; ++p) {
      const RankIdentity id = group->IdentityOf(p);
      EXPECT_EQ(tables[r][p].rank, p);
      EXPECT_EQ(tables[r][p].node_id, id.node_id);
      EXPECT_EQ(tables[r][p].local_rank, id.local_rank);
      EXPECT_EQ(tables[r][p].local_size, id.local_size);
      EXPECT_EQ(tables[r][p].host, id.host);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, ContextTest,
                         ::testing::Values(Layout{1, 0}, Layout{2, 0}, Layout{3, 0}, Layout{8, 4}, Layout{11, 3},
                                           Layout{16, 0}, Layout{16, 5}));

}  // namespace
}  // namespace gpurun
