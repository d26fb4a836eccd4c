// Command-line parsing for gpurun (see options.h).
#include "runtime/launcher/options.h"

#include <pmix_version.h>

#include <cctype>
#include <string_view>

#include "gpurun/gpurun.h"
#include "runtime/base/parse.h"

namespace gpurun::launcher {
namespace {

enum class Kind {
  kRanks,
  kNodes,
  kDisableAutoCleanup,
  kExport,
  kTagOutput,
  kTimeout,
  kOversubscribe,
  kNoOversubscribe,
  kBindTo,
  kReportBindings,
  kLauncher,
  kDryRun,
  kPrintParams,
  kVersion,
  kHelp,
};

struct OptionSpec {
  std::string_view name;  // written with one or two dashes: -np, --np
  Kind kind;
  bool takes_value;
};

constexpr OptionSpec kSpecs[] = {
    {"n", Kind::kRanks, true},
    {"np", Kind::kRanks, true},
    {"nodes", Kind::kNodes, true},
    {"disable-auto-cleanup", Kind::kDisableAutoCleanup, false},
    {"x", Kind::kExport, true},
    {"tag-output", Kind::kTagOutput, false},
    {"l", Kind::kTagOutput, false},
    {"timeout", Kind::kTimeout, true},
    {"oversubscribe", Kind::kOversubscribe, false},
    {"no-oversubscribe", Kind::kNoOversubscribe, false},
    {"bind-to", Kind::kBindTo, true},
    {"report-bindings", Kind::kReportBindings, false},
    {"launcher", Kind::kLauncher, true},
    {"dry-run", Kind::kDryRun, false},
    {"print-params", Kind::kPrintParams, false},
    {"version", Kind::kVersion, false},
    {"help", Kind::kHelp, false},
    {"h", Kind::kHelp, false},
};

const OptionSpec* FindSpec(std::string_view name) {
  for (const OptionSpec& spec : kSpecs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool IsVariableName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

Status ParseExport(const std::string& text, Options& options) {
  const size_t eq = text.find('=');
  ExportVar var{text.substr(0, eq), std::nullopt};
  if (eq != std::string::npos) var.value = text.substr(eq + 1);
  if (!IsVariableName(var.name)) {
    return InvalidUsage("-x '" + text + "': expected VAR or VAR=value with VAR made of letters, digits and _");
  }
  options.exports.push_back(std::move(var));
  return OkStatus();
}

Status ParseRanks(std::string_view text, Options& options) {
  StatusOr<int64_t> n = ParseInt(text);
  if (!n.ok()) return InvalidUsage(n.status().message());
  if (*n < 1 || *n > kMaxRanks) {
    return InvalidUsage("the number of ranks must be between 1 and " + std::to_string(kMaxRanks) + ", not " +
                        std::string(text));
  }
  options.num_ranks = static_cast<int>(*n);
  return OkStatus();
}

Status ApplyValue(Kind kind, const std::string& value, Options& options) {
  switch (kind) {
    case Kind::kRanks: return ParseRanks(value, options);
    case Kind::kExport: return ParseExport(value, options);
    case Kind::kNodes: {
      StatusOr<int64_t> k = ParseInt(value);
      if (!k.ok()) return InvalidUsage(k.status().message());
      if (*k < 1 || *k > kMaxRanks) return InvalidUsage("the number of nodes must be at least 1, not " + value);
      options.num_nodes = static_cast<int>(*k);
      return OkStatus();
    }
    case Kind::kTimeout: {
      StatusOr<double> seconds = ParseDuration(value);
      if (!seconds.ok()) return InvalidUsage(seconds.status().message());
      options.timeout_s = *seconds > 0 ? std::optional<double>(*seconds) : std::nullopt;
      return OkStatus();
    }
    case Kind::kBindTo: {
      constexpr std::string_view kChoices[] = {"none", "core", "numa"};
      StatusOr<int> choice = ParseChoice(value, kChoices);
      if (!choice.ok()) return InvalidUsage(choice.status().message());
      options.bind_to = static_cast<BindTo>(*choice);
      return OkStatus();
    }
    case Kind::kLauncher: {
      constexpr std::string_view kChoices[] = {"auto", "local", "srun"};
      StatusOr<int> choice = ParseChoice(value, kChoices);
      if (!choice.ok()) return InvalidUsage(choice.status().message());
      options.launcher = static_cast<LauncherChoice>(*choice);
      return OkStatus();
    }
    default: return InternalError("option kind takes no value");
  }
}

void ApplyFlag(Kind kind, Options& options) {
  switch (kind) {
    case Kind::kTagOutput: options.tag_output = true; break;
    case Kind::kDisableAutoCleanup: options.auto_cleanup = false; break;
    case Kind::kOversubscribe: options.oversubscribe = Oversubscribe::kYes; break;
    case Kind::kNoOversubscribe: options.oversubscribe = Oversubscribe::kNo; break;
    case Kind::kReportBindings: options.report_bindings = true; break;
    case Kind::kDryRun: options.dry_run = true; break;
    case Kind::kPrintParams: options.print_params = true; break;
    case Kind::kVersion: options.version = true; break;
    case Kind::kHelp: options.help = true; break;
    default: break;
  }
}

// Handles args[i] (an option); advances i past a separate value.
Status ParseOne(std::span<const std::string> args, size_t& i, Options& options) {
  const std::string& arg = args[i];
  std::string_view body(arg);
  body.remove_prefix(body.starts_with("--") ? 2 : 1);
  const size_t eq = body.find('=');
  const std::string_view name = body.substr(0, eq);
  const OptionSpec* spec = FindSpec(name);
  if (spec == nullptr) return InvalidUsage("unknown option '" + arg + "' (see gpurun --help)");
  const std::string shown = arg.substr(0, arg.find('='));
  if (!spec->takes_value) {
    if (eq != std::string_view::npos) return InvalidUsage("option " + shown + " takes no value");
    ApplyFlag(spec->kind, options);
    return OkStatus();
  }
  std::string value;
  if (eq != std::string_view::npos) {
    value = std::string(body.substr(eq + 1));
  } else if (i + 1 < args.size()) {
    value = args[++i];
  } else {
    return InvalidUsage("option " + shown + " needs a value");
  }
  Status status = ApplyValue(spec->kind, value, options);
  if (!status.ok()) return InvalidUsage("option " + shown + ": " + status.message());
  return OkStatus();
}

}  // namespace

StatusOr<Options> ParseOptions(std::span<const std::string> args) {
  Options options;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program
    GR_RETURN_IF_ERROR(ParseOne(args, i, options));
  }
  options.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (options.num_nodes > options.num_ranks) {
    return InvalidUsage("--nodes " + std::to_string(options.num_nodes) + " needs at least that many ranks (-n " +
                        std::to_string(options.num_ranks) + ")");
  }
  const bool needs_program = !options.help && !options.version && !options.print_params;
  if (needs_program && options.command.empty()) {
    return InvalidUsage("no program given (usage: gpurun [options] program [args...]; see gpurun --help)");
  }
  return options;
}

std::string HelpText() {
  return R"(Usage: gpurun [options] program [args...]

Starts N ranks of `program` on this node, wired together through an embedded
PMIx server, and forwards their output, input and signals.

Options (each may be written with one or two dashes; values as "-n 4" or "-n=4"):
  -n, -np N            Number of ranks (default 1, at most 4096).
  --nodes K            Spread the ranks in blocks over K virtual nodes of this
                       machine (GPURUN_HOST_ID=<host>-vnode<k> in each rank):
                       ranks on different virtual nodes talk over the
                       inter-node wire (UCX), so multi-node paths run here.
                       GPURUN_LOCAL_RANK/LOCAL_SIZE follow the virtual nodes;
                       UCX_NET_DEVICES defaults to lo (loopback).
  --disable-auto-cleanup
                       When a rank fails, let the others run on (their pending
                       operations with it fail with an error naming it)
                       instead of killing them; the exit status is still the
                       first failure's. grAbort still ends the whole job.
  -x VAR               Export VAR with gpurun's value to every rank.
  -x VAR=value         Set VAR=value in every rank (also seen by --print-params).
  -l, --tag-output     Prefix every output line with "[rank] ". Without it lines
                       are still kept whole (never mixed mid-line).
  --timeout SEC        Kill the job after SEC (30, 90s, 500ms, 5m, 1h), print the
                       ranks still running with their pids, and exit 124.
  --bind-to WHAT       none (default), core (rank i on core i), or numa (rank i
                       on the NUMA domain of core i). Bindings come from hwloc.
  --report-bindings    Print each rank's binding on stderr.
  --oversubscribe      Allow more ranks than cores, also with --bind-to core
                       (ranks then wrap around the cores).
  --no-oversubscribe   Make more ranks than cores an error.
                       Default: more ranks than cores is allowed (GPU jobs often
                       need little CPU), except with --bind-to core, where it
                       needs --oversubscribe.
  --launcher WHO       auto (default), local or srun. auto: inside a Slurm
                       allocation (SLURM_JOB_ID set, SLURM_STEP_ID not set:
                       salloc, sbatch) gpurun runs `srun --mpi=pmix` with the
                       options translated (see below); elsewhere, and inside
                       a job step, gpurun starts the ranks on this node.
  --dry-run            Print the srun command line gpurun would run and exit
                       (an error when gpurun would not use srun).
  --print-params       Print every GPURUN_* parameter (value, source, meaning),
                       with -x VAR=value applied, and exit.
  --version            Print the version and exit.
  -h, --help           Print this help and exit.
  --                   End of options: the next argument is the program.

Inside a Slurm allocation the options become srun options:
  -n N -> -n N;  --nodes K -> -N K (real nodes of the allocation);
  -x VAR[=value] -> --export=ALL,VAR[=value] (a value holding ',' is an error);
  --tag-output -> --label ("R: " prefixes);  stdin -> --input=0;
  kill the job when a rank fails -> --kill-on-bad-exit=1
  (--disable-auto-cleanup -> --kill-on-bad-exit=0; srun still ends the whole
  step once a rank is killed by a signal);
  --bind-to core|numa -> --cpu-bind=cores|ldoms (none: Slurm's default);
  --report-bindings -> --cpu-bind=verbose;  --oversubscribe -> --overcommit
  (without it Slurm's limits apply: no more ranks than the allocation's CPUs);
  the grace between SIGTERM and SIGKILL is Slurm's KillWait, not
  GPURUN_KILL_GRACE;
  --timeout SEC: gpurun runs srun as its child and, after SEC, sends it
  SIGTERM (SIGKILL after GPURUN_KILL_GRACE + 10 s) and exits 124.
The exit status is srun's (the highest of the ranks'). The ranks find
Slurm's PMIx server and take their node identity (host, node id, local
ranks) from it.

Each rank gets gpurun's environment, the -x variables, the PMIx variables, and
GPURUN_RANK, GPURUN_SIZE, GPURUN_LOCAL_RANK, GPURUN_LOCAL_SIZE, GPURUN_JOB_ID,
OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE and MPI_LOCALRANKID.
stdin goes to rank 0; the other ranks read /dev/null.

When a rank fails (non-zero exit, killed by a signal, or abort), the other
ranks (unless --disable-auto-cleanup) get SIGTERM, then SIGKILL after GPURUN_KILL_GRACE (default 1 s).
SIGINT, SIGTERM and SIGHUP are forwarded to every rank and end the job;
SIGUSR1 and SIGUSR2 are forwarded only.

Exit status:
  0          every rank exited with 0
  N          the exit code of the first rank to fail (128+S if it was killed
             by signal S), or the code a rank passed to abort (1 if it was 0)
  128+S      gpurun received signal S (SIGINT, SIGTERM or SIGHUP)
  124        --timeout expired
  2          usage error, bad GPURUN_* value, or the program cannot be started
)";
}

std::string VersionText() {
  return "gpurun " + std::to_string(GR_VERSION_MAJOR) + "." + std::to_string(GR_VERSION_MINOR) + "." +
         std::to_string(GR_VERSION_PATCH) + " (OpenPMIx " + std::to_string(PMIX_VERSION_MAJOR) + "." +
         std::to_string(PMIX_VERSION_MINOR) + "." + std::to_string(PMIX_VERSION_RELEASE) + ")\n";
}

}  // namespace gpurun::launcher
