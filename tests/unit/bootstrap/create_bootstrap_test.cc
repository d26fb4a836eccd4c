#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "runtime/base/env.h"
#include "runtime/base/params.h"
#include "runtime/bootstrap/bootstrap.h"

namespace gpurun {
namespace {

class CreateBootstrapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (GetEnv("PMIX_NAMESPACE") || !EnvNamesWithPrefix("PMIX_SERVER_URI").empty()) {
      GTEST_SKIP() << "running under a PMIx launcher: these tests need an environment without one";
    }
  }
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

TEST_F(CreateBootstrapTest, SingletonWhenAskedFor) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_BOOTSTRAP", "singleton").ok());
  auto boot = CreateBootstrap();
  ASSERT_TRUE(boot.ok()) << boot.status().ToString();
  EXPECT_STREQ((*boot)->name(), "singleton");
  EXPECT_EQ((*boot)->identity().size, 1);
  EXPECT_TRUE((*boot)->Finalize().ok());
}

TEST_F(CreateBootstrapTest, AutoWithoutServerIsSingleton) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_BOOTSTRAP", "auto").ok());
  auto boot = CreateBootstrap();
  ASSERT_TRUE(boot.ok()) << boot.status().ToString();
  EXPECT_STREQ((*boot)->name(), "singleton");
}

TEST_F(CreateBootstrapTest, ForcedPmixWithoutServerIsAClearError) {
  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_BOOTSTRAP", "pmix").ok());
  const auto start = std::chrono::steady_clock::now();
  auto boot = CreateBootstrap();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(boot.ok());
  EXPECT_EQ(boot.status().code(), grInvalidUsage);
  const std::string& message = boot.status().message();
  EXPECT_NE(message.find("GPURUN_BOOTSTRAP=pmix"), std::string::npos) << message;
  EXPECT_NE(message.find("gpurun"), std::string::npos) << message;
  EXPECT_LT(elapsed, std::chrono::seconds(10)) << "no hang";

  // PMIx was left as it was found: a second attempt behaves the same.
  auto again = CreateBootstrap();
  EXPECT_EQ(again.status().code(), grInvalidUsage);
}

// A launcher's variables left behind, pointing at a server that is gone.
void SetStalePmixEnvironment() {
  setenv("PMIX_NAMESPACE", "gpurun-test-stale", 1);
  setenv("PMIX_RANK", "0", 1);
  setenv("PMIX_SERVER_URI41", "gpurun-test-stale.0;tcp4://127.0.0.1:1", 1);
}

// In a child process: PMIx keeps state after failing against a stale server.
using CreateBootstrapDeathTest = CreateBootstrapTest;

TEST_F(CreateBootstrapDeathTest, AutoFallsBackToSingletonWhenServerIsUnreachable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        SetStalePmixEnvironment();
        if (!ParamRegistry::Global().Override("GPURUN_BOOTSTRAP", "auto").ok()) std::exit(2);
        auto boot = CreateBootstrap();
        std::exit(boot.ok() && std::string((*boot)->name()) == "singleton" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST_F(CreateBootstrapDeathTest, ForcedPmixWithUnreachableServerIsRemoteError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        SetStalePmixEnvironment();
        if (!ParamRegistry::Global().Override("GPURUN_BOOTSTRAP", "pmix").ok()) std::exit(2);
        auto boot = CreateBootstrap();
        std::exit(!boot.ok() && boot.status().code() == grRemoteError ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace gpurun
