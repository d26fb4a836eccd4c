// How a job's events become gpurun's exit status. Pure: no I/O.
//
// The first failure decides: a rank's non-zero exit (its code), a rank killed
// by signal S (128+S), an abort (its code, 1 if that was 0), --timeout (124),
// a terminating signal to gpurun (128+S), or a launch error (2). Later events
// (ranks dying of the teardown's SIGTERM) do not change it. No failure: 0.
#ifndef GPURUN_RUNTIME_LAUNCHER_EXIT_POLICY_H_
#define GPURUN_RUNTIME_LAUNCHER_EXIT_POLICY_H_

#include <string>

namespace gpurun::launcher {

inline constexpr int kExitUsage = 2;
inline constexpr int kExitTimeout = 124;

// The shell's view of a waitpid status: the exit code, or 128 + signal.
int ExitCodeOfWaitStatus(int wait_status);

// "exited with code 3", "killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int wait_status);

class JobOutcome {
 public:
  // Each returns true when the event is the job's first failure, i.e. the
  // caller should report it and tear the job down.
  bool OnRankExit(int wait_status);
  bool OnAbort(int code);
  bool OnTimeout();
  bool OnSignal(int signal);
  bool OnLaunchError();

  bool failed() const { return failed_; }
  int exit_code() const { return exit_code_; }

 private:
  bool Fail(int code);

  bool failed_ = false;
  int exit_code_ = 0;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_EXIT_POLICY_H_
