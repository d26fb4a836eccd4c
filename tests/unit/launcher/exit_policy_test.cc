#include "runtime/launcher/exit_policy.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace gpurun::launcher {
namespace {

// waitpid statuses as Linux encodes them.
int Exited(int code) { return (code & 0xff) << 8; }
int Killed(int signal) { return signal & 0x7f; }

TEST(ExitPolicy, WaitStatus) {
  EXPECT_EQ(ExitCodeOfWaitStatus(Exited(0)), 0);
  EXPECT_EQ(ExitCodeOfWaitStatus(Exited(3)), 3);
  EXPECT_EQ(ExitCodeOfWaitStatus(Killed(SIGKILL)), 137);
  EXPECT_EQ(DescribeWaitStatus(Exited(3)), "exited with code 3");
  EXPECT_EQ(DescribeWaitStatus(Killed(SIGKILL)).rfind("killed by signal 9 (", 0), 0u);
}

TEST(ExitPolicy, AllZeroIsSuccess) {
  JobOutcome outcome;
  EXPECT_FALSE(outcome.OnRankExit(Exited(0)));
  EXPECT_FALSE(outcome.OnRankExit(Exited(0)));
  EXPECT_FALSE(outcome.failed());
  EXPECT_EQ(outcome.exit_code(), 0);
}

TEST(ExitPolicy, FirstFailureWins) {
  JobOutcome outcome;
  EXPECT_FALSE(outcome.OnRankExit(Exited(0)));
  EXPECT_TRUE(outcome.OnRankExit(Exited(3)));
  EXPECT_FALSE(outcome.OnRankExit(Killed(SIGTERM)));  // killed by the teardown
  EXPECT_FALSE(outcome.OnTimeout());
  EXPECT_FALSE(outcome.OnSignal(SIGINT));
  EXPECT_EQ(outcome.exit_code(), 3);
}

TEST(ExitPolicy, KilledRank) {
  JobOutcome outcome;
  EXPECT_TRUE(outcome.OnRankExit(Killed(SIGKILL)));
  EXPECT_EQ(outcome.exit_code(), 128 + SIGKILL);
}

TEST(ExitPolicy, Abort) {
  JobOutcome outcome;
  EXPECT_TRUE(outcome.OnAbort(7));
  EXPECT_FALSE(outcome.OnRankExit(Exited(7)));
  EXPECT_EQ(outcome.exit_code(), 7);
  JobOutcome zero;
  EXPECT_TRUE(zero.OnAbort(0));
  EXPECT_EQ(zero.exit_code(), 1);  // an aborted job never looks successful
  JobOutcome big;
  EXPECT_TRUE(big.OnAbort(256));
  EXPECT_EQ(big.exit_code(), 1);
}

TEST(ExitPolicy, TimeoutSignalLaunchError) {
  JobOutcome timeout;
  EXPECT_TRUE(timeout.OnTimeout());
  EXPECT_EQ(timeout.exit_code(), 124);
  JobOutcome signal;
  EXPECT_TRUE(signal.OnSignal(SIGTERM));
  EXPECT_FALSE(signal.OnRankExit(Killed(SIGTERM)));
  EXPECT_EQ(signal.exit_code(), 143);
  JobOutcome launch;
  EXPECT_TRUE(launch.OnLaunchError());
  EXPECT_EQ(launch.exit_code(), 2);
}

}  // namespace
}  // namespace gpurun::launcher
