// Job set-up: PMIx server, stdin, environment, fork of every rank (see job.h).
#include <fcntl.h>
#include <unistd.h>

#include <atomic>

#include "runtime/base/log.h"
#include "runtime/launcher/job.h"
#include "runtime/launcher/rank_env.h"
#include "runtime/launcher/rank_process.h"
#include "runtime/launcher/user_message.h"

extern char** environ;

namespace gpurun::launcher {
namespace {

// gpurun's environment without the PMIx connection variables of an outer
// launcher (they would point the ranks at the wrong server); PMIX_MCA_*
// tuning variables are kept.
EnvBlock InheritedEnv() {
  EnvBlock env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("PMIX_") && !entry.starts_with("PMIX_MCA_")) continue;
    env.SetEntry(entry);
  }
  return env;
}

}  // namespace

Status Job::Launch() {
  const int n = config_.options.num_ranks;
  GR_ASSIGN_OR_RETURN(JobLayout layout, JobLayout::Block(n, {hostname_}));
  layout_.emplace(std::move(layout));
  std::vector<std::string> virtual_hosts;
  for (int k = 0; k < config_.options.num_nodes && config_.options.num_nodes > 1; ++k) {
    virtual_hosts.push_back(hostname_ + "-vnode" + std::to_string(k));
  }
  if (!virtual_hosts.empty()) {
    GR_ASSIGN_OR_RETURN(JobLayout virtual_layout, JobLayout::Block(n, virtual_hosts));
    virtual_layout_.emplace(std::move(virtual_layout));
  }
  GR_ASSIGN_OR_RETURN(Topology topology, Topology::Load());
  topology_.emplace(std::move(topology));
  GR_ASSIGN_OR_RETURN(std::vector<RankBinding> bindings,
                      PlanBindings(*topology_, n, config_.options.bind_to, config_.options.oversubscribe));
  GR_ASSIGN_OR_RETURN(TempDir dir, TempDir::Create());
  tmpdir_.emplace(std::move(dir));
  GR_ASSIGN_OR_RETURN(pmix_, PmixServer::Start(tmpdir_->path(), *topology_, io_, *this));
  GR_LOG(Info, Launch) << "PMIx server up at " << ElapsedMs() << " ms, rendezvous in " << tmpdir_->path();
  GR_RETURN_IF_ERROR(pmix_->RegisterJob(nspace(), *layout_, job_id_, config_.setup_timeout_s));
  GR_LOG(Info, Launch) << "job registered at " << ElapsedMs() << " ms";
  UniqueFd rank0_stdin;
  GR_RETURN_IF_ERROR(SetUpStdin(rank0_stdin));
  WaitSignals();
  ranks_.resize(static_cast<size_t>(n));
  GR_RETURN_IF_ERROR(StartRanks(bindings, rank0_stdin.valid() ? rank0_stdin.get() : STDIN_FILENO));
  if (config_.options.report_bindings) ReportBindings(bindings);
  if (config_.options.timeout_s) {
    timeout_timer_.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(*config_.options.timeout_s)));
    timeout_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) OnTimeout();
    });
  }
  GR_LOG(Info, Launch) << "job " << job_id_ << ": " << n << " ranks started at " << ElapsedMs() << " ms";
  return OkStatus();
}

// Rank 0 reads gpurun's stdin: directly when it is a file, pipe or /dev/null;
// through a pipe fed by a thread when it is a terminal (see stdin_forwarder.h).
// `rank0_stdin` gets that pipe's read end, or stays invalid for "use fd 0".
Status Job::SetUpStdin(UniqueFd& rank0_stdin) {
  dev_null_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null_.valid()) return ErrnoError("open /dev/null", errno);
  if (!::isatty(STDIN_FILENO)) return OkStatus();
  GR_ASSIGN_OR_RETURN(Pipe pipe, MakePipe());
  GR_ASSIGN_OR_RETURN(stdin_forwarder_, StdinForwarder::Start(STDIN_FILENO, std::move(pipe.write)));
  rank0_stdin = std::move(pipe.read);
  return OkStatus();
}

Status Job::StartRanks(const std::vector<RankBinding>& bindings, int rank0_stdin) {
  EnvBlock base = InheritedEnv();
  for (const auto& [name, value] : config_.exports) base.Set(name, value);
  // Virtual nodes are all on this machine: keep UCX's traffic on loopback unless told otherwise.
  if (virtual_layout_ && !base.Get("UCX_NET_DEVICES")) base.Set("UCX_NET_DEVICES", "lo");
  std::vector<RankProcess> started;
  for (int r = 0; r < layout_->num_ranks(); ++r) {
    // PMIx sees the one real node; the rank's identity follows its virtual node, if any.
    const RankPlace& place = virtual_layout_ ? virtual_layout_->rank(r) : layout_->rank(r);
    EnvBlock env = base;
    GR_ASSIGN_OR_RETURN(std::vector<std::string> pmix_vars, pmix_->ForkEnv(r));
    for (const std::string& var : pmix_vars) env.SetEntry(var);
    if (virtual_layout_) env.Set("GPURUN_HOST_ID", virtual_layout_->hostname_of(r));
    SetRankIdentity({r, layout_->num_ranks(), place.local_rank, place.local_size, job_id_}, env);
    RankLaunch launch{r,
                      config_.program_path,
                      config_.options.command,
                      env.Entries(),
                      r == 0 ? rank0_stdin : dev_null_.get(),
                      bindings[r]};
    GR_ASSIGN_OR_RETURN(RankProcess process, RankProcess::Fork(launch));
    ranks_[r].pid = process.pid();
    ranks_[r].running = true;
    ++running_;
    AttachOutput(r, process.TakeStdout(), process.TakeStderr());
    started.push_back(std::move(process));
  }
  for (RankProcess& process : started) GR_RETURN_IF_ERROR(process.AwaitExec());
  return OkStatus();
}

void Job::AttachOutput(int rank, UniqueFd out, UniqueFd err) {
  const bool tag = config_.options.tag_output;
  auto closed = [this, rank] { OnStreamClosed(rank); };
  ranks_[rank].open_streams = 2;
  open_streams_ += 2;
  streams_.push_back(std::make_unique<StreamForwarder>(io_, std::move(out), rank, tag, stdout_sink_, closed));
  streams_.push_back(std::make_unique<StreamForwarder>(io_, std::move(err), rank, tag, stderr_sink_, closed));
}

void Job::ReportBindings(const std::vector<RankBinding>& bindings) const {
  for (size_t r = 0; r < bindings.size(); ++r) {
    TellUser("rank " + std::to_string(r) + (bindings[r].bound ? " bound to " : " not bound") +
             (bindings[r].bound ? bindings[r].description : ""));
  }
}

}  // namespace gpurun::launcher
