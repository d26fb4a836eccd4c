// Exit status policy (see exit_policy.h).
#include "runtime/launcher/exit_policy.h"

#include <sys/wait.h>

#include <cstring>

namespace gpurun::launcher {

int ExitCodeOfWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;  // stopped/continued: not an end, callers never pass these
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exited with code " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    std::string text = "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    if (WCOREDUMP(wait_status)) text += ", core dumped";
    return text;
  }
  return "ended with wait status " + std::to_string(wait_status);
}

bool JobOutcome::Fail(int code) {
  if (failed_) return false;
  failed_ = true;
  exit_code_ = code;
  return true;
}

bool JobOutcome::OnRankExit(int wait_status) {
  const int code = ExitCodeOfWaitStatus(wait_status);
  return code != 0 && Fail(code);
}

bool JobOutcome::OnAbort(int code) {
  const int status = code & 0xff;
  return Fail(status == 0 ? 1 : status);
}

bool JobOutcome::OnTimeout() { return Fail(kExitTimeout); }

bool JobOutcome::OnSignal(int signal) { return Fail(128 + signal); }

bool JobOutcome::OnLaunchError() { return Fail(kExitUsage); }

}  // namespace gpurun::launcher
