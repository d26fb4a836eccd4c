// Job event loop: signals, reaping, abort, timeout and teardown (see job.h).
#include "runtime/launcher/job.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <sstream>
#include <thread>

#include "p2p/shm/shm_names.h"
#include "runtime/base/log.h"
#include "runtime/launcher/user_message.h"

namespace gpurun::launcher {
namespace {

std::string LocalHostname() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) return "localhost";
  return host;
}

// "<host>-<pid>-<counter>": unique per job on this machine.
std::string NewJobId(const std::string& host) {
  static std::atomic<int> counter{0};
  return host + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

std::chrono::steady_clock::duration Seconds(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

std::string SecondsText(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

}  // namespace

Job::Job(JobConfig config)
    : config_(std::move(config)),
      hostname_(LocalHostname()),
      job_id_(NewJobId(hostname_)),
      signals_(io_, SIGINT, SIGTERM, SIGHUP),
      timeout_timer_(io_),
      kill_timer_(io_),
      drain_timer_(io_),
      report_timer_(io_),
      stdout_sink_(STDOUT_FILENO),
      stderr_sink_(STDERR_FILENO) {
  // Installed before any fork, so that no SIGCHLD and no signal to gpurun is missed.
  signals_.add(SIGUSR1);
  signals_.add(SIGUSR2);
  signals_.add(SIGCHLD);
}

Job::~Job() = default;

namespace {

// Seen once under heavy load (before the orderly shutdown of pmix_server.cc):
// every rank had ended, and gpurun's main thread and PMIx's thread sat
// blocked in PMIx_server_finalize; the event loop, and with it the handling
// of SIGTERM, had already stopped, so gpurun never exited. Whatever PMIx
// does, gpurun ends with the job's exit status kFinalizeWatchdog after it
// starts finalizing.
constexpr std::chrono::seconds kFinalizeWatchdog{15};

void ArmFinalizeWatchdog(int exit_code) {
  std::thread([exit_code] {
    std::this_thread::sleep_for(kFinalizeWatchdog);
    static constexpr char kMessage[] = "gpurun: the PMIx server did not shut down within 15 s; exiting anyway\n";
    (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    _exit(exit_code);
  }).detach();
}

// PMIx_server_finalize of Debian 12's libpmix 4 still crashes now and then
// (SIGSEGV inside it) after a rank ended early, even with the job
// deregistered first (pmix_server.cc): 14 of 150 runs of `gpurun -n 4
// mp_probe exit 2 3` on the 2-core development machine, 2026-11-30. The job
// has ended and its status is decided by then, so a crash there ends gpurun
// with that status, saying so, instead of turning it into 139. Only while
// finalizing: the default action is restored afterwards.
volatile sig_atomic_t g_finalize_exit_code = 0;

void OnFinalizeCrash(int) {
  static constexpr char kMessage[] =
      "gpurun: the PMIx library crashed while shutting down its server, after the job ended; exiting with the job's "
      "status\n";
  (void)!write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
  _exit(g_finalize_exit_code);
}

void GuardFinalizeCrashes(int exit_code, bool on) {
  g_finalize_exit_code = exit_code;
  struct sigaction action {};
  action.sa_handler = on ? OnFinalizeCrash : SIG_DFL;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS}) (void)sigaction(signal, &action, nullptr);
}

}  // namespace

int Job::Run() {
  const Status status = Launch();
  if (!status.ok()) {
    TellUser(status.message());
    outcome_.OnLaunchError();
    StartTeardown(SIGTERM);
    if (running_ == 0) OnAllRanksEnded();
  }
  if (!all_ended_ || open_streams_ > 0) io_.run();
  FlushReport();
  stdin_forwarder_.reset();
  KillProcessGroups(SIGKILL);  // anything a rank left behind in its process group
  // Shared-memory segments a rank died before unlinking (the wire unlinks them at start-up).
  if (const int removed = p2p::RemoveShmSegments(nspace()); removed > 0) {
    GR_LOG(Info, Launch) << "removed " << removed << " shared-memory segments left by job " << nspace();
  }
  GR_LOG(Trace, Launch) << "finalizing the PMIx server at " << ElapsedMs() << " ms";
  ArmFinalizeWatchdog(outcome_.exit_code());
  GuardFinalizeCrashes(outcome_.exit_code(), true);
  pmix_.reset();
  GuardFinalizeCrashes(outcome_.exit_code(), false);
  tmpdir_.reset();
  topology_.reset();
  GR_LOG(Info, Launch) << "job " << job_id_ << " done at " << ElapsedMs() << " ms, exit status "
                       << outcome_.exit_code();
  return outcome_.exit_code();
}

double Job::ElapsedMs() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

std::string Job::Describe(int rank) const {
  return "rank " + std::to_string(rank) + " (pid " + std::to_string(ranks_[rank].pid) + " on " + hostname_ + ")";
}

void Job::WaitSignals() {
  signals_.async_wait([this](const boost::system::error_code& ec, int signal) {
    if (ec) return;
    OnSignal(signal);
    WaitSignals();
  });
}

void Job::OnSignal(int signal) {
  if (signal == SIGCHLD) {
    ReapChildren();
  } else if (signal == SIGUSR1 || signal == SIGUSR2) {
    SignalRunning(signal);
  } else if (tearing_down_) {
    GR_LOG(Info, Launch) << SignalName(signal) << " during teardown: killing the ranks now";
    SignalRunning(SIGKILL);
  } else {
    outcome_.OnSignal(signal);
    TellUser("received " + SignalName(signal) + ", forwarding it to the ranks and ending the job");
    SignalRunning(signal);
    StartTeardown(0);
  }
}

// Reaps only our own ranks' pids; SIGCHLDs may have merged, so all are checked.
void Job::ReapChildren() {
  for (size_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r].running) continue;
    int status = 0;
    pid_t pid;
    do {
      pid = waitpid(ranks_[r].pid, &status, WNOHANG);
    } while (pid < 0 && errno == EINTR);
    if (pid == ranks_[r].pid) OnRankExit(static_cast<int>(r), status);
  }
}

void Job::OnRankExit(int rank, int wait_status) {
  ranks_[rank].running = false;
  --running_;
  GR_LOG(Info, Launch) << Describe(rank) << " " << DescribeWaitStatus(wait_status) << " at " << ElapsedMs() << " ms";
  if (outcome_.OnRankExit(wait_status)) {
    const bool cleanup = config_.options.auto_cleanup;
    const char* rest = running_ == 0 ? ""
                       : cleanup     ? "; terminating the other ranks"
                                     : "; the other ranks run on (--disable-auto-cleanup)";
    ReportAfterOutput(rank, Describe(rank) + " " + DescribeWaitStatus(wait_status) + rest);
    if (cleanup) StartTeardown(SIGTERM);
  }
  if (rank == 0) stdin_forwarder_.reset();
  if (running_ == 0) OnAllRanksEnded();
}

void Job::OnClientConnected(int rank) {
  if (rank >= 0 && rank < static_cast<int>(ranks_.size())) ranks_[rank].connected = true;
  GR_LOG(Trace, Launch) << "rank " << rank << " connected to PMIx at " << ElapsedMs() << " ms";
}

void Job::OnClientFinalized(int rank) {
  if (rank >= 0 && rank < static_cast<int>(ranks_.size())) ranks_[rank].finalized = true;
  GR_LOG(Trace, Launch) << "rank " << rank << " finalized PMIx at " << ElapsedMs() << " ms";
}

void Job::OnAbort(int rank, int code, const std::string& message) {
  if (rank < 0 || rank >= static_cast<int>(ranks_.size())) return;
  if (outcome_.OnAbort(code)) {
    TellUser(Describe(rank) + " called abort with code " + std::to_string(code) +
             (message.empty() ? "" : ": " + message));
    StartTeardown(SIGTERM);
  }
}

void Job::OnTimeout() {
  if (!outcome_.OnTimeout()) return;
  std::string still;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    if (!ranks_[r].running) continue;
    if (!still.empty()) still += ", ";
    still += "rank " + std::to_string(r) + " (pid " + std::to_string(ranks_[r].pid) + ")";
  }
  TellUser("job timed out after " + SecondsText(*config_.options.timeout_s) + " (--timeout); still running: " + still);
  StartTeardown(SIGTERM);
}

// Sends `first_signal` (0: none) to every running rank, then SIGKILL after the grace.
void Job::StartTeardown(int first_signal) {
  if (tearing_down_) return;
  tearing_down_ = true;
  timeout_timer_.cancel();
  if (first_signal != 0) SignalRunning(first_signal);
  if (running_ == 0) return;
  kill_timer_.expires_after(Seconds(config_.kill_grace_s));
  kill_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    GR_LOG(Info, Launch) << "kill grace of " << SecondsText(config_.kill_grace_s) << " over: SIGKILL";
    SignalRunning(SIGKILL);
  });
}

void Job::SignalRunning(int signal) {
  for (const Rank& rank : ranks_) {
    if (!rank.running) continue;
    if (kill(-rank.pid, signal) != 0) kill(rank.pid, signal);  // process group not made yet
  }
}

void Job::KillProcessGroups(int signal) {
  for (const Rank& rank : ranks_) {
    if (rank.pid > 0) kill(-rank.pid, signal);
  }
}

// Every rank is reaped: stop what is left in their process groups, drain the
// output pipes (bounded by the grace), then end the loop.
void Job::OnAllRanksEnded() {
  if (all_ended_) return;
  all_ended_ = true;
  timeout_timer_.cancel();
  kill_timer_.cancel();
  stdin_forwarder_.reset();
  KillProcessGroups(SIGTERM);
  if (open_streams_ == 0) {
    io_.stop();
    return;
  }
  drain_timer_.expires_after(Seconds(config_.kill_grace_s));
  drain_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    GR_LOG(Info, Launch) << "output still open after the ranks ended: closing it";
    KillProcessGroups(SIGKILL);
    for (auto& stream : streams_) stream->Close();
  });
}

// The failure message waits for the rank's last output lines (its pipes'
// EOF), at most kReportDelay, so that it comes after them.
void Job::ReportAfterOutput(int rank, std::string message) {
  pending_report_ = {rank, std::move(message)};
  if (ranks_[rank].open_streams == 0) return FlushReport();
  report_timer_.expires_after(kReportDelay);
  report_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) FlushReport();
  });
}

void Job::FlushReport() {
  if (!pending_report_) return;
  TellUser(pending_report_->second);
  pending_report_.reset();
  report_timer_.cancel();
}

void Job::OnStreamClosed(int rank) {
  if (--ranks_[rank].open_streams == 0 && pending_report_ && pending_report_->first == rank) FlushReport();
  --open_streams_;
  if (open_streams_ == 0 && all_ended_) {
    drain_timer_.cancel();
    io_.stop();
  }
}

}  // namespace gpurun::launcher
