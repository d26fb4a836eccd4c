// srun as gpurun's child (see srun_runner.h).
#include "runtime/launcher/srun_runner.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "runtime/launcher/exit_policy.h"
#include "runtime/launcher/user_message.h"

extern char** environ;

namespace gpurun::launcher {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
constexpr double kSrunExitSlackS = 10;  // srun's own clean-up of the step after SIGTERM

sigset_t WatchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kForwarded) sigaddset(&set, s);
  sigaddset(&set, SIGCHLD);
  return set;
}

// posix_spawn of srun with the default signal mask and dispositions; -1 on failure (told).
pid_t Spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults = WatchedSignals();
  sigemptyset(&none);
  sigaddset(&defaults, SIGPIPE);  // gpurun ignores SIGPIPE; srun must not inherit that
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    TellUser("cannot start " + args[0] + ": " + std::strerror(rc));
    return -1;
  }
  return pid;
}

// What the wait loop has seen so far.
struct Watch {
  pid_t pid;
  Clock::time_point deadline = Clock::time_point::max();  // --timeout, then the SIGKILL deadline
  bool timed_out = false;
  bool killed = false;
  int gpurun_signal = 0;  // the first terminating signal gpurun received
};

// "0.3", "90", "11.2": seconds as a person writes them.
std::string Seconds(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

void OnSignal(int signal, Watch& watch) {
  if (signal == SIGCHLD) return;
  kill(watch.pid, signal);
  if (signal != SIGUSR1 && signal != SIGUSR2 && watch.gpurun_signal == 0) watch.gpurun_signal = signal;
}

void OnDeadline(const SrunRun& run, Watch& watch) {
  if (!watch.timed_out) {
    watch.timed_out = true;
    TellUser("timeout: the job ran longer than --timeout " + Seconds(*run.timeout_s) +
             " s; sending SIGTERM to srun (pid " + std::to_string(watch.pid) + ") to end the job step");
    kill(watch.pid, SIGTERM);
    watch.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(run.kill_grace_s + kSrunExitSlackS));
  } else if (!watch.killed) {
    watch.killed = true;
    TellUser("srun (pid " + std::to_string(watch.pid) + ") still runs " + Seconds(run.kill_grace_s + kSrunExitSlackS) +
             " s after SIGTERM: sending SIGKILL");
    kill(watch.pid, SIGKILL);
    watch.deadline = Clock::time_point::max();
  }
}

}  // namespace

int RunSrun(const SrunRun& run) {
  const sigset_t watched = WatchedSignals();
  sigset_t old_mask;
  sigprocmask(SIG_BLOCK, &watched, &old_mask);
  Watch watch{Spawn(run.argv)};
  if (watch.pid < 0) {
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    return kExitUsage;
  }
  if (run.timeout_s) {
    watch.deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*run.timeout_s));
  }
  int wait_status = 0;
  while (true) {
    const pid_t done = waitpid(watch.pid, &wait_status, WNOHANG);
    if (done == watch.pid) break;
    if (done < 0 && errno != EINTR) {
      TellUser(std::string("waiting for srun: ") + std::strerror(errno));
      return kExitUsage;
    }
    if (Clock::now() >= watch.deadline) OnDeadline(run, watch);
    const timespec tick{0, 100 * 1000 * 1000};  // SIGCHLD wakes the loop at once; the tick checks the deadline
    const int signal = sigtimedwait(&watched, nullptr, &tick);
    if (signal > 0) OnSignal(signal, watch);
  }
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (watch.timed_out) return kExitTimeout;
  if (watch.gpurun_signal != 0) return 128 + watch.gpurun_signal;
  const int code = ExitCodeOfWaitStatus(wait_status);
  if (code != 0) TellUser("srun " + DescribeWaitStatus(wait_status));
  return code;
}

}  // namespace gpurun::launcher
