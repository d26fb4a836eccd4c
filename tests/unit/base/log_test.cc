#include "runtime/base/log.h"

#include <gtest/gtest.h>

#include "runtime/base/param_table.h"

namespace gpurun {
namespace {

TEST(Log, SubsysMaskGrammar) {
  EXPECT_EQ(*ParseSubsysMask("ALL"), kAllSubsys);
  EXPECT_EQ(*ParseSubsysMask("INIT,bootstrap"),
            static_cast<uint32_t>(Subsys::kInit) | static_cast<uint32_t>(Subsys::kBootstrap));
  EXPECT_EQ(*ParseSubsysMask("^COLL,TUNING"),
            kAllSubsys & ~(static_cast<uint32_t>(Subsys::kColl) | static_cast<uint32_t>(Subsys::kTuning)));
  EXPECT_FALSE(ParseSubsysMask("INIT,NOPE").ok());
  EXPECT_FALSE(ParseSubsysMask("INIT,,P2P").ok());
}

TEST(Log, LevelAndMaskFilter) {
  Logger::Configure(LogLevel::kInfo, static_cast<uint32_t>(Subsys::kInit));
  EXPECT_TRUE(Logger::Enabled(LogLevel::kInfo, Subsys::kInit));
  EXPECT_FALSE(Logger::Enabled(LogLevel::kInfo, Subsys::kColl));
  EXPECT_TRUE(Logger::Enabled(LogLevel::kWarn, Subsys::kColl)) << "warnings ignore the mask";
  EXPECT_FALSE(Logger::Enabled(LogLevel::kTrace, Subsys::kInit));
  Logger::Configure(LogLevel::kNone, kAllSubsys);
  EXPECT_FALSE(Logger::Enabled(LogLevel::kWarn, Subsys::kInit));
  Logger::Configure(LogLevel::kWarn, kAllSubsys);
}

TEST(Log, LineCarriesHostPidRank) {
  Logger::Configure(LogLevel::kInfo, kAllSubsys);
  Logger::SetRank(3);
  ::testing::internal::CaptureStderr();
  GR_LOG(Info, Bootstrap) << "hello " << 42;
  int evaluated = 0;
  GR_LOG(Trace, Bootstrap) << "never " << ++evaluated;
  const std::string out = ::testing::internal::GetCapturedStderr();
  Logger::Configure(LogLevel::kWarn, kAllSubsys);
  Logger::SetRank(-1);
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  const std::string prefix = std::string(host) + ":" + std::to_string(getpid()) + ":3 gpurun INFO BOOTSTRAP hello 42\n";
  EXPECT_EQ(out, prefix);
  EXPECT_EQ(evaluated, 0) << "a filtered line's stream expression is not evaluated";
}

}  // namespace
}  // namespace gpurun
