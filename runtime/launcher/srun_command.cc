// The srun translation of gpurun's options (see srun_command.h).
#include "runtime/launcher/srun_command.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace gpurun::launcher {
namespace {

// The --export list: "ALL" (srun's environment, i.e. gpurun's), then each -x.
StatusOr<std::string> ExportList(const Options& options,
                                 const std::vector<std::pair<std::string, std::string>>& exports) {
  std::string list = "ALL";
  for (const ExportVar& var : options.exports) {
    if (!var.value) {
      const bool known =
          std::any_of(exports.begin(), exports.end(), [&](const auto& e) { return e.first == var.name; });
      if (known) list += "," + var.name;  // srun copies its own (gpurun's) value
      continue;
    }
    if (var.value->find_first_of(",\n") != std::string::npos) {
      return InvalidUsage("-x " + var.name + "=" + *var.value +
                          ": inside a Slurm allocation -x becomes srun --export, whose list cannot hold a value "
                          "with ',' or a newline; set " +
                          var.name + " in gpurun's environment instead (srun passes it on)");
    }
    list += "," + var.name + "=" + *var.value;
  }
  return list;
}

// --cpu-bind value for --bind-to / --report-bindings; empty: no option.
std::string CpuBind(const Options& options) {
  std::string bind;
  if (options.report_bindings) bind = "verbose";
  const char* what = options.bind_to == BindTo::kCore ? "cores" : options.bind_to == BindTo::kNuma ? "ldoms" : nullptr;
  if (what != nullptr) bind += std::string(bind.empty() ? "" : ",") + what;
  return bind;
}

bool SafeShellChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./=:,+@%").find(c) != std::string::npos;
}

}  // namespace

StatusOr<bool> UseSrun(const Options& options, const EnvLookup& lookup) {
  const bool in_allocation = lookup("SLURM_JOB_ID").has_value();
  const bool in_step = lookup("SLURM_STEP_ID").has_value();
  bool srun = false;
  switch (options.launcher) {
    case LauncherChoice::kLocal: srun = false; break;
    case LauncherChoice::kAuto: srun = in_allocation && !in_step; break;
    case LauncherChoice::kSrun:
      if (!in_allocation) {
        return InvalidUsage(
            "--launcher srun: this is not inside a Slurm allocation (SLURM_JOB_ID is not set); "
            "use salloc or sbatch");
      }
      srun = true;
      break;
  }
  if (options.dry_run && !srun) {
    return InvalidUsage(std::string("--dry-run prints the srun line of a launch inside a Slurm allocation, but ") +
                        (options.launcher == LauncherChoice::kLocal ? "--launcher local was given"
                         : in_step ? "this is inside a job step (SLURM_STEP_ID is set): gpurun starts the ranks itself"
                                   : "SLURM_JOB_ID is not set: gpurun starts the ranks itself"));
  }
  return srun;
}

StatusOr<std::vector<std::string>> SrunCommand(const Options& options, const std::string& srun_path,
                                               const std::string& program_path,
                                               const std::vector<std::pair<std::string, std::string>>& exports) {
  std::vector<std::string> argv = {srun_path, "--mpi=pmix", "-n", std::to_string(options.num_ranks)};
  if (options.num_nodes > 1) argv.insert(argv.end(), {"-N", std::to_string(options.num_nodes)});
  GR_ASSIGN_OR_RETURN(std::string export_list, ExportList(options, exports));
  argv.push_back("--export=" + export_list);
  argv.push_back(options.auto_cleanup ? "--kill-on-bad-exit=1" : "--kill-on-bad-exit=0");
  argv.push_back("--input=0");
  argv.push_back("--quit-on-interrupt");  // one SIGINT (Ctrl-C, or forwarded by gpurun) ends the step
  if (options.tag_output) argv.push_back("--label");
  if (const std::string bind = CpuBind(options); !bind.empty()) argv.push_back("--cpu-bind=" + bind);
  if (options.oversubscribe == Oversubscribe::kYes) argv.push_back("--overcommit");
  argv.push_back("--");
  argv.push_back(program_path);
  argv.insert(argv.end(), options.command.begin() + 1, options.command.end());
  return argv;
}

std::string ShellLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& word : argv) {
    if (!line.empty()) line += ' ';
    if (!word.empty() && std::all_of(word.begin(), word.end(), SafeShellChar)) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

}  // namespace gpurun::launcher
