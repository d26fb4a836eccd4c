// gpurun's top level (see launcher.h).
#include "runtime/launcher/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "coll/tuner/override.h"
#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#include "runtime/launcher/exit_policy.h"
#include "runtime/launcher/job.h"
#include "runtime/launcher/program_path.h"
#include "runtime/launcher/rank_env.h"
#include "runtime/launcher/srun_command.h"
#include "runtime/launcher/srun_runner.h"
#include "runtime/launcher/user_message.h"

namespace gpurun::launcher {
namespace {

// fds 0-2 closed at start would be taken by the first files gpurun opens
// (a PMIx socket could become a rank's stdin): point them at /dev/null.
void EnsureStandardFds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0) continue;
    const int null_fd = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null_fd >= 0 && null_fd != fd) {
      dup2(null_fd, fd);
      close(null_fd);
    }
  }
}

void WarnUnknownVariables(const Options& options) {
  std::vector<std::string> unknown = params::UnknownGpurunVariables();
  for (const ExportVar& var : options.exports) {
    const bool launcher_var = std::find(std::begin(params::kLauncherVariables), std::end(params::kLauncherVariables),
                                        var.name) != std::end(params::kLauncherVariables);
    if (var.name.starts_with("GPURUN_") && !launcher_var && ParamRegistry::Global().Find(var.name) == nullptr &&
        std::find(unknown.begin(), unknown.end(), var.name) == unknown.end()) {
      unknown.push_back(var.name);
    }
  }
  for (const std::string& name : unknown) {
    GR_LOG(Warn, Launch) << "unknown variable " << name << " is ignored (gpurun --print-params lists the known ones)";
  }
}

void Print(const std::string& text) { (void)std::fputs(text.c_str(), stdout); }

// Inside a Slurm allocation: runs (or, with --dry-run, prints) the srun line.
int LaunchWithSrun(const Options& options, const EnvLookup& lookup, const std::string& program_path,
                   const std::vector<std::pair<std::string, std::string>>& exports) {
  StatusOr<std::string> srun = ResolveProgram("srun", lookup("PATH"));
  if (!srun.ok()) {
    TellUser("inside a Slurm allocation (SLURM_JOB_ID is set) gpurun runs srun, but: " + srun.status().message() +
             " (or use --launcher local)");
    return kExitUsage;
  }
  StatusOr<std::vector<std::string>> argv = SrunCommand(options, *srun, program_path, exports);
  if (!argv.ok()) {
    TellUser(argv.status().message());
    return kExitUsage;
  }
  if (options.dry_run) {
    Print(ShellLine(*argv) + "\n");
    if (options.timeout_s) {
      TellUser("--timeout is enforced by gpurun around that srun (srun's own --time counts whole minutes)");
    }
    return 0;
  }
  GR_LOG(Info, Launch) << "inside Slurm allocation " << lookup("SLURM_JOB_ID").value_or("?") << ": running "
                       << ShellLine(*argv);
  return RunSrun({*argv, options.timeout_s, params::kKillGrace.Get()});
}

}  // namespace

int RunLauncher(int argc, char** argv) {
  EnsureStandardFds();
  Logger::SetRole("gpurun");
  (void)signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill gpurun: it discards output instead

  const std::vector<std::string> args(argv + 1, argv + argc);
  StatusOr<Options> options = ParseOptions(args);
  if (!options.ok()) {
    TellUser(options.status().message());
    return kExitUsage;
  }
  if (options->help) return Print(HelpText()), 0;
  if (options->version) return Print(VersionText()), 0;

  const EnvLookup lookup = LookupWithAssignments(options->exports, ProcessEnv());
  if (Status status = ParamRegistry::Global().Load(lookup); !status.ok()) {
    TellUser(status.message());
    return kExitUsage;
  }
  if (Status status = coll::LoadCollOverride().status(); !status.ok()) {  // GPURUN_ALGO / GPURUN_PROTO
    TellUser(status.message());
    return kExitUsage;
  }
  Logger::ConfigureFromParams();
  WarnUnknownVariables(*options);
  if (options->print_params) return Print(ParamRegistry::Global().Describe()), 0;

  JobConfig config;
  std::vector<std::string> missing;
  config.exports = ResolveExports(options->exports, lookup, &missing);
  for (const std::string& name : missing) {
    GR_LOG(Warn, Launch) << "-x " << name << ": " << name << " is not set in gpurun's environment; not exported";
  }
  StatusOr<std::string> path = ResolveProgram(options->command.front(), lookup("PATH"));
  if (!path.ok()) {
    TellUser(path.status().message());
    return kExitUsage;
  }
  StatusOr<bool> use_srun = UseSrun(*options, lookup);
  if (!use_srun.ok()) {
    TellUser(use_srun.status().message());
    return kExitUsage;
  }
  if (*use_srun) return LaunchWithSrun(*options, lookup, *path, config.exports);
  config.program_path = *path;
  config.kill_grace_s = params::kKillGrace.Get();
  config.options = std::move(*options);
  Job job(std::move(config));
  return job.Run();
}

}  // namespace gpurun::launcher
