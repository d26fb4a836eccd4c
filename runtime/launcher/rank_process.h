// Starting one rank: fork, then in the child (async-signal-safe steps only,
// since the PMIx server runs threads) its own process group, death with
// gpurun (PR_SET_PDEATHSIG), default SIGPIPE and signal mask, stdin/stdout/
// stderr, CPU binding, and exec. A failure in the child is sent to the parent
// through a close-on-exec pipe, so gpurun reports exactly what failed.
//
//   RankLaunch launch = ...;                  // prepared before fork
//   GR_ASSIGN_OR_RETURN(RankProcess p, RankProcess::Fork(launch));
//   ... fork the other ranks ...
//   GR_RETURN_IF_ERROR(p.AwaitExec());        // returns once the child exec'd
#ifndef GPURUN_RUNTIME_LAUNCHER_RANK_PROCESS_H_
#define GPURUN_RUNTIME_LAUNCHER_RANK_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/launcher/binding.h"
#include "runtime/launcher/unique_fd.h"

namespace gpurun::launcher {

struct RankLaunch {
  int rank = 0;
  std::string path;               // resolved executable
  std::vector<std::string> argv;  // argv[0] is the program as the user wrote it
  std::vector<std::string> env;   // "NAME=value"
  int stdin_fd = -1;              // becomes the child's fd 0 (not owned)
  RankBinding binding;
};

class RankProcess {
 public:
  // Forks the rank; the child's stdout and stderr are pipes whose read ends
  // this object holds. Fails only if the pipes or fork cannot be made.
  static StatusOr<RankProcess> Fork(const RankLaunch& launch);

  // Waits until the child has exec'd (returns OkStatus) or reported why it
  // could not (the child then exits with 127). Bounded by the child's own
  // few pre-exec steps. Call once.
  Status AwaitExec();

  pid_t pid() const { return pid_; }
  UniqueFd TakeStdout() { return std::move(stdout_); }
  UniqueFd TakeStderr() { return std::move(stderr_); }

 private:
  RankProcess() = default;

  int rank_ = 0;
  std::string path_;
  pid_t pid_ = -1;
  UniqueFd stdout_;
  UniqueFd stderr_;
  UniqueFd exec_status_;  // read end of the close-on-exec error pipe
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_RANK_PROCESS_H_
