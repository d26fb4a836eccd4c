// fork/exec of one rank (see rank_process.h).
#include "runtime/launcher/rank_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpurun::launcher {
namespace {

// What the child failed at, sent with errno through the exec-status pipe.
enum ChildStage : int { kStageParent = 1, kStageStdio, kStageBinding, kStageExec };

const char* StageText(int stage) {
  switch (stage) {
    case kStageParent: return "gpurun exited before the rank started";
    case kStageStdio: return "cannot set up stdin/stdout/stderr";
    case kStageBinding: return "cannot bind to its CPUs";
    case kStageExec: return "cannot execute";
    default: return "failed to start";
  }
}

struct ChildReport {
  int stage;
  int err;
};

// Null-terminated char* views of strings that outlive them.
std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void ChildFail(int report_fd, int stage) {
  const ChildReport report{stage, errno};
  ssize_t ignored = ::write(report_fd, &report, sizeof(report));
  (void)ignored;
  _exit(127);
}

// Runs in the child: async-signal-safe calls only.
[[noreturn]] void RunChild(const RankLaunch& launch, char* const* argv, char* const* envp, int out_fd, int err_fd,
                           int report_fd, pid_t parent) {
  setpgid(0, 0);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) ChildFail(report_fd, kStageParent);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &dfl, nullptr);  // gpurun ignores it; the program must not inherit that
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (dup2(launch.stdin_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0) {
    ChildFail(report_fd, kStageStdio);
  }
  if (!ApplyBinding(launch.binding)) ChildFail(report_fd, kStageBinding);
  execve(launch.path.c_str(), argv, envp);
  ChildFail(report_fd, kStageExec);
}

}  // namespace

StatusOr<RankProcess> RankProcess::Fork(const RankLaunch& launch) {
  GR_ASSIGN_OR_RETURN(Pipe out, MakePipe());
  GR_ASSIGN_OR_RETURN(Pipe err, MakePipe());
  GR_ASSIGN_OR_RETURN(Pipe report, MakePipe());
  std::vector<char*> argv = CStrings(launch.argv);
  std::vector<char*> envp = CStrings(launch.env);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return ErrnoError("fork for rank " + std::to_string(launch.rank), errno);
  if (pid == 0) {
    RunChild(launch, argv.data(), envp.data(), out.write.get(), err.write.get(), report.write.get(), parent);
  }
  setpgid(pid, pid);  // also done by the child; whichever runs first wins the race
  RankProcess process;
  process.rank_ = launch.rank;
  process.path_ = launch.path;
  process.pid_ = pid;
  process.stdout_ = std::move(out.read);
  process.stderr_ = std::move(err.read);
  process.exec_status_ = std::move(report.read);
  return process;  // the write ends close here: only the child holds them now
}

Status RankProcess::AwaitExec() {
  ChildReport report{};
  size_t got = 0;
  while (got < sizeof(report)) {
    const ssize_t n = ::read(exec_status_.get(), reinterpret_cast<char*>(&report) + got, sizeof(report) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  exec_status_.reset();
  if (got == 0) return OkStatus();  // closed by exec
  if (got < sizeof(report)) return SystemError("rank " + std::to_string(rank_) + ": lost its start-up report");
  std::string text =
      "rank " + std::to_string(rank_) + " (pid " + std::to_string(pid_) + "): " + StageText(report.stage);
  if (report.stage == kStageExec) text += " " + path_;
  return SystemError(text + ": " + std::strerror(report.err));
}

}  // namespace gpurun::launcher
