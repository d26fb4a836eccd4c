// One gpurun job: the PMIx server, the ranks, their output and input, signals,
// timers and teardown, tied together by one Boost.Asio event loop on the
// calling thread.
//
//   Job job(std::move(config));
//   int exit_status = job.Run();   // returns when every rank is gone
//
// Run() starts the PMIx server in a private temporary directory, registers
// the job, forks the ranks, then runs the loop: it reaps the ranks (only its
// own pids), forwards output in whole lines, forwards signals, and on the
// first failure (see exit_policy.h) sends SIGTERM to every rank's process
// group, then SIGKILL after GPURUN_KILL_GRACE. Before returning it kills
// whatever is left in the ranks' process groups, so no process outlives it.
#ifndef GPURUN_RUNTIME_LAUNCHER_JOB_H_
#define GPURUN_RUNTIME_LAUNCHER_JOB_H_

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/launcher/binding.h"
#include "runtime/launcher/exit_policy.h"
#include "runtime/launcher/job_layout.h"
#include "runtime/launcher/options.h"
#include "runtime/launcher/output_forwarder.h"
#include "runtime/launcher/pmix_server.h"
#include "runtime/launcher/stdin_forwarder.h"
#include "runtime/launcher/temp_dir.h"
#include "runtime/launcher/topology.h"
#include "runtime/launcher/unique_fd.h"

namespace gpurun::launcher {

// How long a rank's failure message may wait for the rank's last output.
inline constexpr std::chrono::milliseconds kReportDelay{100};

struct JobConfig {
  Options options;
  std::string program_path;                                  // resolved options.command[0]
  std::vector<std::pair<std::string, std::string>> exports;  // resolved -x variables
  double kill_grace_s = 1;                                   // SIGTERM → SIGKILL
  double setup_timeout_s = 10;                               // bound on PMIx set-up callbacks
};

class Job : public PmixEvents {
 public:
  explicit Job(JobConfig config);
  ~Job() override;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Runs the job to its end and returns gpurun's exit status. Call once.
  int Run();

  // PmixEvents, on the loop thread.
  void OnClientConnected(int rank) override;
  void OnClientFinalized(int rank) override;
  void OnAbort(int rank, int code, const std::string& message) override;

 private:
  struct Rank {
    pid_t pid = -1;
    bool running = false;
    bool connected = false;
    bool finalized = false;
    int open_streams = 0;  // its stdout and stderr pipes not at EOF yet
  };

  // Set-up (job_launch.cc).
  Status Launch();
  Status SetUpStdin(UniqueFd& rank0_stdin);
  Status StartRanks(const std::vector<RankBinding>& bindings, int rank0_stdin);
  void AttachOutput(int rank, UniqueFd out, UniqueFd err);
  void ReportBindings(const std::vector<RankBinding>& bindings) const;

  // Events and teardown (job.cc).
  void WaitSignals();
  void OnSignal(int signal);
  void ReapChildren();
  void OnRankExit(int rank, int wait_status);
  void OnTimeout();
  void StartTeardown(int first_signal);
  void SignalRunning(int signal);
  void KillProcessGroups(int signal);
  void OnAllRanksEnded();
  void OnStreamClosed(int rank);
  void ReportAfterOutput(int rank, std::string message);
  void FlushReport();
  std::string Describe(int rank) const;  // "rank 1 (pid 4242 on host)"
  // The PMIx namespace, which the ranks also see as their job id.
  std::string nspace() const { return "gpurun-" + job_id_; }
  double ElapsedMs() const;  // since the job object was made, for the logs

  JobConfig config_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string hostname_;
  std::string job_id_;
  boost::asio::io_context io_;
  boost::asio::signal_set signals_;
  boost::asio::steady_timer timeout_timer_;
  boost::asio::steady_timer kill_timer_;
  boost::asio::steady_timer drain_timer_;
  boost::asio::steady_timer report_timer_;
  OutputSink stdout_sink_;
  OutputSink stderr_sink_;
  std::optional<JobLayout> layout_;          // the real node, as PMIx sees it
  std::optional<JobLayout> virtual_layout_;  // --nodes K > 1: the virtual nodes
  std::optional<Topology> topology_;         // outlives pmix_ (it uses it)
  std::optional<TempDir> tmpdir_;            // outlives pmix_ (its files are inside)
  std::unique_ptr<PmixServer> pmix_;         // destroyed before io_ (it posts into it)
  std::vector<Rank> ranks_;
  std::vector<std::unique_ptr<StreamForwarder>> streams_;
  std::unique_ptr<StdinForwarder> stdin_forwarder_;
  UniqueFd dev_null_;
  JobOutcome outcome_;
  std::optional<std::pair<int, std::string>> pending_report_;  // rank, message
  int running_ = 0;
  int open_streams_ = 0;
  bool tearing_down_ = false;
  bool all_ended_ = false;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_JOB_H_
