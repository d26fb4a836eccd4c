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

TEST(Binding, NoneNeedsNoTopology) {
  StatusOr<std::vector<RankBinding>> bindings = PlanBindings(16, BindTo::kNone, Oversubscribe::kDefault);
  ASSERT_TRUE(bindings.ok());
  ASSERT_EQ(bindings->size(), 16u);
  for (const RankBinding& b : *bindings) EXPECT_FALSE(b.bound);
  EXPECT_TRUE(ApplyBinding((*bindings)[0]));
}

TEST(Binding, CoreBindingOnThisMachine) {
  StatusOr<std::vector<RankBinding>> bindings = PlanBindings(1, BindTo::kCore, Oversubscribe::kDefault);
  ASSERT_TRUE(bindings.ok()) << bindings.status().ToString();
  EXPECT_TRUE((*bindings)[0].bound);
  EXPECT_EQ((*bindings)[0].description.rfind("core 0 (cpuset 0x", 0), 0u) << (*bindings)[0].description;
  EXPECT_GT(CPU_COUNT(&(*bindings)[0].cpus), 0);
}

}  // namespace
}  // namespace gpurun::launcher
