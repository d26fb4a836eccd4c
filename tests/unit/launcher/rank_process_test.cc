// Forks real (tiny) processes: output pipes, process group, exec errors.
#include "runtime/launcher/rank_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpurun::launcher {
namespace {

std::string ReadAll(UniqueFd fd) {
  std::string out;
  char buffer[256];
  ssize_t n;
  while ((n = ::read(fd.get(), buffer, sizeof(buffer))) > 0) out.append(buffer, static_cast<size_t>(n));
  return out;
}

int Reap(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

RankLaunch Launch(std::string path, std::vector<std::string> argv, int stdin_fd) {
  RankLaunch launch;
  launch.rank = 3;
  launch.path = std::move(path);
  launch.argv = std::move(argv);
  launch.env = {"GREETING=hi", "PATH=/usr/bin:/bin"};
  launch.stdin_fd = stdin_fd;
  return launch;
}

TEST(RankProcess, RunsWithPipesEnvAndOwnProcessGroup) {
  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  StatusOr<RankProcess> process = RankProcess::Fork(
      Launch("/bin/sh",
             {"sh", "-c", "echo $GREETING; echo pgid $(cut -d\" \" -f5 /proc/$$/stat) pid $$ >&2; read x || exit 3"},
             dev_null.get()));
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  EXPECT_TRUE(process->AwaitExec().ok());
  EXPECT_EQ(ReadAll(process->TakeStdout()), "hi\n");
  const std::string err = ReadAll(process->TakeStderr());
  const std::string pid = std::to_string(process->pid());
  EXPECT_EQ(err, "pgid " + pid + " pid " + pid + "\n");
  const int status = Reap(process->pid());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);  // stdin was /dev/null
}

TEST(RankProcess, ExecFailureIsReportedPrecisely) {
  UniqueFd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  StatusOr<RankProcess> process = RankProcess::Fork(Launch("/nonexistent/prog", {"prog"}, dev_null.get()));
  ASSERT_TRUE(process.ok()) << process.status().ToString();
  const Status exec = process->AwaitExec();
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.message().find("rank 3"), std::string::npos) << exec.message();
  EXPECT_NE(exec.message().find("cannot execute /nonexistent/prog: No such file or directory"), std::string::npos)
      << exec.message();
  const int status = Reap(process->pid());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 127);
}

}  // namespace
}  // namespace gpurun::launcher
