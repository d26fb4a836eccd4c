// The gpurun command line: what the user asked for, parsed strictly and without
// side effects (no environment, no file system), so that it is unit-tested.
//
//   gpurun [options] program [args...]
//
// The first argument that is not an option (or everything after `--`) is the
// program; the arguments after it are passed to it untouched.
#ifndef GPURUN_RUNTIME_LAUNCHER_OPTIONS_H_
#define GPURUN_RUNTIME_LAUNCHER_OPTIONS_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::launcher {

// What --bind-to asked for.
enum class BindTo { kNone, kCore, kNuma };

// Whether more ranks than cores is allowed: kDefault allows it, except with
// --bind-to core (there it needs an explicit --oversubscribe).
enum class Oversubscribe { kDefault, kYes, kNo };

// Who starts the ranks (--launcher): kAuto is srun inside a Slurm allocation
// (SLURM_JOB_ID set, SLURM_STEP_ID not set), gpurun itself otherwise.
enum class LauncherChoice { kAuto, kLocal, kSrun };

// One -x argument: "VAR" (value taken from gpurun's environment) or "VAR=value".
struct ExportVar {
  std::string name;
  std::optional<std::string> value;  // nullopt: copy gpurun's value
};

struct Options {
  int num_ranks = 1;
  int num_nodes = 1;         // --nodes K: virtual nodes on this machine
  bool auto_cleanup = true;  // false: --disable-auto-cleanup
  std::vector<ExportVar> exports;
  bool tag_output = false;
  std::optional<double> timeout_s;  // --timeout; nullopt: no job timeout
  Oversubscribe oversubscribe = Oversubscribe::kDefault;
  BindTo bind_to = BindTo::kNone;
  bool report_bindings = false;
  LauncherChoice launcher = LauncherChoice::kAuto;
  bool dry_run = false;  // --dry-run: print the srun line instead of running it
  bool print_params = false;
  bool version = false;
  bool help = false;
  std::vector<std::string> command;  // program, then its arguments
};

// The largest -n accepted.
inline constexpr int kMaxRanks = 4096;

// Parses the arguments after argv[0]. Errors (unknown option, missing or bad
// value, n < 1, no program when one is needed) are InvalidUsage with a message
// meant for the user. --help, --version and --print-params need no program.
StatusOr<Options> ParseOptions(std::span<const std::string> args);

// The --help text.
std::string HelpText();

// The --version text ("gpurun 0.1.0 (OpenPMIx 4.2.2)").
std::string VersionText();

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_OPTIONS_H_
