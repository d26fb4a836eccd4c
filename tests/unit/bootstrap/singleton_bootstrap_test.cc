#include "runtime/bootstrap/singleton_bootstrap.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>

namespace gpurun {
namespace {

std::vector<std::byte> Bytes(std::string_view text) {
  std::vector<std::byte> out;
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  return out;
}

TEST(SingletonBootstrapTest, IdentityIsRankZeroOfOne) {
  auto boot = SingletonBootstrap::Create();
  ASSERT_TRUE(boot.ok()) << boot.status().ToString();
  const RankIdentity& id = (*boot)->identity();
  EXPECT_EQ(id.rank, 0);
  EXPECT_EQ(id.size, 1);
  EXPECT_EQ(id.local_rank, 0);
  EXPECT_EQ(id.local_size, 1);
  EXPECT_EQ(id.node_id, 0);
  EXPECT_EQ(id.num_nodes, 1);
  char host[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);
  EXPECT_EQ(id.host, host);
  EXPECT_EQ(id.job_id, "singleton-" + std::to_string(getpid()));
  EXPECT_STREQ((*boot)->name(), "singleton");
}

TEST(SingletonBootstrapTest, CollectivesCompleteAtOnce) {
  auto boot = std::move(SingletonBootstrap::Create()).value();
  const std::vector<std::byte> mine = Bytes("hello");
  auto all = boot->AllGather(mine);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0], mine);
  auto empty = boot->AllGather({});
  ASSERT_TRUE(empty.ok());
  ASSERT_EQ(empty->size(), 1u);
  EXPECT_TRUE((*empty)[0].empty());
  EXPECT_TRUE(boot->Barrier().ok());
  EXPECT_TRUE(boot->Abort(3, "nothing to stop").ok());
}

TEST(SingletonBootstrapTest, CallsAfterFinalizeAreRejected) {
  auto boot = std::move(SingletonBootstrap::Create()).value();
  ASSERT_TRUE(boot->Finalize().ok());
  EXPECT_EQ(boot->Barrier().code(), grInvalidUsage);
  EXPECT_EQ(boot->AllGather({}).status().code(), grInvalidUsage);
  EXPECT_EQ(boot->Finalize().code(), grInvalidUsage);
}

}  // namespace
}  // namespace gpurun
