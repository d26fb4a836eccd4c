// Runs a command as a child process for the multi-process tests: feeds it
// stdin, collects stdout/stderr, optionally signals it after a delay, and
// bounds its run time. Each run carries a unique marker variable so the test
// can find any process of the job left behind.
#ifndef GPURUN_TESTS_MP_PROCESS_RUNNER_H_
#define GPURUN_TESTS_MP_PROCESS_RUNNER_H_

#include <string>
#include <utility>
#include <vector>

namespace gpurun::mp {

struct RunOptions {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added to this process's environment
  std::string stdin_data;
  bool stdin_closed = false;  // stdin from /dev/null instead of a pipe
  int signal = 0;             // sent to the child after signal_after seconds
  double signal_after = 0;
  double limit = 60;  // the child is SIGKILLed after this many seconds and the run fails
};

struct RunResult {
  int exit_code = -1;  // exit status, or 128 + signal
  bool hit_limit = false;
  double seconds = 0;
  std::string out;
  std::string err;
  std::string marker;  // value of GR_MP_MARKER given to the job
};

RunResult RunProcess(const RunOptions& options);

// Pids of live (non-zombie) processes whose environment holds GR_MP_MARKER=marker,
// after waiting up to `grace` seconds for them to disappear.
std::vector<int> LeftoverProcesses(const std::string& marker, double grace = 1.0);

// Number of lines of `text` that start with `prefix`.
int CountLines(const std::string& text, const std::string& prefix);

}  // namespace gpurun::mp

#endif  // GPURUN_TESTS_MP_PROCESS_RUNNER_H_
