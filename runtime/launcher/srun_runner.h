// Runs the srun command of a launch inside a Slurm allocation as gpurun's
// child and waits for it: SIGINT, SIGTERM and SIGHUP to gpurun are forwarded
// to srun (which ends the step: it runs with --quit-on-interrupt), SIGUSR1 and
// SIGUSR2 are forwarded only, and --timeout is enforced here because srun's
// own limit (--time) counts whole minutes.
#ifndef GPURUN_RUNTIME_LAUNCHER_SRUN_RUNNER_H_
#define GPURUN_RUNTIME_LAUNCHER_SRUN_RUNNER_H_

#include <optional>
#include <string>
#include <vector>

namespace gpurun::launcher {

struct SrunRun {
  std::vector<std::string> argv;    // argv[0]: the srun executable's path
  std::optional<double> timeout_s;  // --timeout; nullopt: none
  double kill_grace_s = 1;          // GPURUN_KILL_GRACE
};

// Starts srun and returns gpurun's exit status: srun's (its exit code, or
// 128+S if it was killed by signal S), 124 after --timeout (srun gets SIGTERM,
// then SIGKILL if it has not exited kill_grace_s + 10 s later), 128+S when
// gpurun itself got the terminating signal S, 2 when srun cannot be started.
// Every failure is told to the user on stderr. Blocks until srun has exited.
int RunSrun(const SrunRun& run);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_SRUN_RUNNER_H_
