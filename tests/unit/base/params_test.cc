#include "runtime/base/params.h"

#include <gtest/gtest.h>

#include <map>

#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

class ParamsTest : public ::testing::Test {
 protected:
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

TEST_F(ParamsTest, DefaultsWithoutEnvironment) {
  ASSERT_TRUE(ParamRegistry::Global().Load(FakeEnv({})).ok());
  EXPECT_DOUBLE_EQ(params::kTimeout.Get(), 600);
  EXPECT_EQ(params::kDebug.Get(), static_cast<int64_t>(LogLevel::kWarn));
  EXPECT_EQ(params::kBootstrap.Get(), params::kBootstrapAuto);
  EXPECT_EQ(ParamRegistry::Global().Find("GPURUN_TIMEOUT")->source, ParamSource::kDefault);
}

TEST_F(ParamsTest, ReadsEnvironmentAndRecordsSource) {
  ASSERT_TRUE(ParamRegistry::Global()
                  .Load(FakeEnv({{"GPURUN_TIMEOUT", "90s"}, {"GPURUN_DEBUG", "info"}, {"GPURUN_BOOTSTRAP", "PMIX"}}))
                  .ok());
  EXPECT_DOUBLE_EQ(params::kTimeout.Get(), 90);
  EXPECT_EQ(params::kDebug.Get(), static_cast<int64_t>(LogLevel::kInfo));
  EXPECT_EQ(params::kBootstrap.Get(), params::kBootstrapPmix);
  const auto* e = ParamRegistry::Global().Find("GPURUN_TIMEOUT");
  EXPECT_EQ(e->source, ParamSource::kEnvironment);
  EXPECT_EQ(e->text, "90s");
}

TEST_F(ParamsTest, BadValueNamesVariableAndChangesNothing) {
  ASSERT_TRUE(ParamRegistry::Global().Load(FakeEnv({{"GPURUN_TIMEOUT", "5"}})).ok());
  Status s = ParamRegistry::Global().Load(FakeEnv({{"GPURUN_DEBUG", "INFO"}, {"GPURUN_TIMEOUT", "soon"}}));
  ASSERT_EQ(s.code(), grInvalidArgument);
  EXPECT_NE(s.message().find("GPURUN_TIMEOUT='soon'"), std::string::npos) << s.message();
  EXPECT_DOUBLE_EQ(params::kTimeout.Get(), 5) << "a failed Load keeps every previous value";
  EXPECT_EQ(params::kDebug.Get(), static_cast<int64_t>(LogLevel::kWarn));
}

TEST_F(ParamsTest, RejectsBadEnumAndSubsys) {
  Status s = ParamRegistry::Global().Load(FakeEnv({{"GPURUN_DEBUG", "LOUD"}}));
  EXPECT_NE(s.message().find("GPURUN_DEBUG"), std::string::npos);
  EXPECT_NE(s.message().find("NONE, WARN, INFO, TRACE"), std::string::npos) << s.message();
  s = ParamRegistry::Global().Load(FakeEnv({{"GPURUN_DEBUG_SUBSYS", "INIT,BOOTSTRAPP"}}));
  EXPECT_EQ(s.code(), grInvalidArgument);
  EXPECT_NE(s.message().find("BOOTSTRAPP"), std::string::npos);
  s = ParamRegistry::Global().Load(FakeEnv({{"GPURUN_TIMEOUT", "-1"}}));
  EXPECT_EQ(s.code(), grInvalidArgument);
}

TEST_F(ParamsTest, OverrideAndDescribe) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_KILL_GRACE", "250ms").ok());
  EXPECT_DOUBLE_EQ(params::kKillGrace.Get(), 0.25);
  EXPECT_FALSE(ParamRegistry::Global().Override("GPURUN_NOPE", "1").ok());
  EXPECT_FALSE(ParamRegistry::Global().Override("GPURUN_KILL_GRACE", "x").ok());
  const std::string table = ParamRegistry::Global().Describe();
  for (const auto& e : ParamRegistry::Global().entries()) {
    EXPECT_NE(table.find(e.spec.name), std::string::npos) << e.spec.name;
    EXPECT_FALSE(e.spec.description.empty()) << e.spec.name << " has no description";
  }
  EXPECT_NE(table.find("250ms"), std::string::npos);
  EXPECT_NE(table.find("override"), std::string::npos);
}

TEST_F(ParamsTest, CachedParamRereadsAfterEveryChange) {
  CachedParam<int64_t> nchannels(params::kNChannels);
  EXPECT_EQ(nchannels.Get(), 0);
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_NCHANNELS", "3").ok());
  EXPECT_EQ(nchannels.Get(), 3) << "an override is seen at the next Get";
  ASSERT_TRUE(ParamRegistry::Global().Load(FakeEnv({{"GPURUN_NCHANNELS", "5"}})).ok());
  EXPECT_EQ(nchannels.Get(), 5) << "so is a Load";
  ParamRegistry::Global().Reset();
  EXPECT_EQ(nchannels.Get(), 0) << "and a Reset";
  const uint64_t g = ParamRegistry::Global().generation();
  EXPECT_FALSE(ParamRegistry::Global().Override("GPURUN_NCHANNELS", "x").ok());
  EXPECT_EQ(ParamRegistry::Global().generation(), g) << "a refused override changes nothing";
}

TEST_F(ParamsTest, UnknownVariablesAreReported) {
  setenv("GPURUN_TIMOUT", "5", 1);
  setenv("GPURUN_RANK", "0", 1);
  std::vector<std::string> unknown = params::UnknownGpurunVariables();
  unsetenv("GPURUN_TIMOUT");
  unsetenv("GPURUN_RANK");
  EXPECT_EQ(unknown, std::vector<std::string>{"GPURUN_TIMOUT"});
}

}  // namespace
}  // namespace gpurun
