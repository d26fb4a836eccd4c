#include "runtime/launcher/binding.h"

#include <gtest/gtest.h>

namespace gpurun::launcher {
namespace {

TEST(Binding, OversubscriptionPolicy) {
  // Default: more ranks than cores is fine without binding.
  EXPECT_TRUE(CheckOversubscription(8, 2, BindTo::kNone, Oversubscribe::kDefault).ok());
  EXPECT_TRUE(CheckOversubscription(8, 2, BindTo::kNuma, Oversubscribe::kDefault).ok());
  // --no-oversubscribe forbids it.
  Status no = CheckOversubscription(8, 2, BindTo::kNone, Oversubscribe::kNo);
  EXPECT_EQ(no.code(), grInvalidUsage);
  EXPECT_NE(no.message().find("8 ranks on 2 cores"), std::string::npos);
  EXPECT_TRUE(CheckOversubscription(2, 2, BindTo::kNone, Oversubscribe::kNo).ok());
  // --bind-to core needs an explicit --oversubscribe.
  Status core = CheckOversubscription(3, 2, BindTo::kCore, Oversubscribe::kDefault);
  EXPECT_EQ(core.code(), grInvalidUsage);
  EXPECT_NE(core.message().find("--oversubscribe"), std::string::npos);
  EXPECT_TRUE(CheckOversubscription(3, 2, BindTo::kCore, Oversubscribe::kYes).ok());
  EXPECT_TRUE(CheckOversubscription(2, 2, BindTo::kCore, Oversubscribe::kDefault).ok());
}

TEST(Binding, CoresWrapAround) {
  EXPECT_EQ(AssignCores(5, 2), (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(AssignCores(3, 4), (std::vector<int>{0, 1, 2}));
}

TEST(Binding, UnboundByDefault) {
  StatusOr<Topology> topology = Topology::Load();
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  StatusOr<std::vector<RankBinding>> bindings = PlanBindings(*topology, 16, BindTo::kNone, Oversubscribe::kDefault);
  ASSERT_TRUE(bindings.ok());
  ASSERT_EQ(bindings->size(), 16u);
  for (const RankBinding& b : *bindings) EXPECT_FALSE(b.bound);
  EXPECT_TRUE(ApplyBinding((*bindings)[0]));
}

TEST(Binding, CoreAndNumaOnThisMachine) {
  StatusOr<Topology> topology = Topology::Load();
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  EXPECT_GT(topology->num_cores(), 0);
  StatusOr<std::vector<RankBinding>> core = PlanBindings(*topology, 1, BindTo::kCore, Oversubscribe::kDefault);
  ASSERT_TRUE(core.ok()) << core.status().ToString();
  EXPECT_TRUE((*core)[0].bound);
  EXPECT_EQ((*core)[0].description.rfind("core 0 (cpuset 0x", 0), 0u) << (*core)[0].description;
  EXPECT_GT(CPU_COUNT(&(*core)[0].cpus), 0);
  StatusOr<std::vector<RankBinding>> numa = PlanBindings(*topology, 2, BindTo::kNuma, Oversubscribe::kDefault);
  ASSERT_TRUE(numa.ok()) << numa.status().ToString();
  EXPECT_EQ((*numa)[0].description.rfind("NUMA node 0 (cpuset 0x", 0), 0u) << (*numa)[0].description;
  const int too_many = topology->num_cores() + 1;
  EXPECT_FALSE(PlanBindings(*topology, too_many, BindTo::kCore, Oversubscribe::kDefault).ok());
  EXPECT_TRUE(PlanBindings(*topology, too_many, BindTo::kCore, Oversubscribe::kYes).ok());
  EXPECT_FALSE(PlanBindings(*topology, too_many, BindTo::kNone, Oversubscribe::kNo).ok());
}

}  // namespace
}  // namespace gpurun::launcher
