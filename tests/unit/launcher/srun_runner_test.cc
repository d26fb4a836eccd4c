// RunSrun with /bin/sh standing in for srun: exit status, timeout, start failure.
#include "runtime/launcher/srun_runner.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gpurun::launcher {
namespace {

SrunRun Shell(const std::string& script, std::optional<double> timeout_s = std::nullopt) {
  return SrunRun{{"/bin/sh", "-c", script}, timeout_s, 0.2};
}

TEST(RunSrun, PassesTheExitStatusOn) {
  EXPECT_EQ(RunSrun(Shell("exit 0")), 0);
  EXPECT_EQ(RunSrun(Shell("exit 3")), 3);
  EXPECT_EQ(RunSrun(Shell("kill -KILL $$")), 128 + 9);
}

TEST(RunSrun, TimeoutEndsItWith124) {
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSrun(Shell("exec sleep 30", 0.3)), 124);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(RunSrun, TimeoutEscalatesToSigkill) {
  // The stand-in ignores SIGTERM; SIGKILL follows grace + 10 s later.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(RunSrun(Shell("trap '' TERM; while :; do sleep 0.05; done", 0.2)), 124);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GT(took, std::chrono::seconds(10));
  EXPECT_LT(took, std::chrono::seconds(15));
}

TEST(RunSrun, MissingExecutableIsAUsageError) {
  EXPECT_EQ(RunSrun(SrunRun{{"/nonexistent/srun", "-n", "1"}, std::nullopt, 1}), 2);
}

}  // namespace
}  // namespace gpurun::launcher
