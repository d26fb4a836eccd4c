// gpurun inside a Slurm allocation: whether gpurun delegates to
// `srun --mpi=pmix`, and the srun command line its options translate to.
// Pure: the environment comes in as a lookup, nothing is run, so it is
// unit-tested. The translation table is in gpurun --help (options.cc).
#ifndef GPURUN_RUNTIME_LAUNCHER_SRUN_COMMAND_H_
#define GPURUN_RUNTIME_LAUNCHER_SRUN_COMMAND_H_

#include <string>
#include <utility>
#include <vector>

#include "runtime/base/env.h"
#include "runtime/base/status.h"
#include "runtime/launcher/options.h"

namespace gpurun::launcher {

// True when srun starts the ranks: --launcher srun, or --launcher auto inside
// an allocation (SLURM_JOB_ID set) but not inside a job step (SLURM_STEP_ID
// unset: a rank of a step that runs gpurun starts its ranks itself).
// InvalidUsage for --launcher srun outside an allocation, and for --dry-run
// when gpurun would not use srun.
StatusOr<bool> UseSrun(const Options& options, const EnvLookup& lookup);

// The srun command line (argv, starting with `srun_path`) for `options`, the
// program resolved to `program_path`, and the -x variables resolved to
// `exports` (name, value; a -x VAR without value is passed by name and srun
// takes its value from gpurun's environment, which srun inherits).
// InvalidUsage names an option that cannot be passed to srun.
StatusOr<std::vector<std::string>> SrunCommand(const Options& options, const std::string& srun_path,
                                               const std::string& program_path,
                                               const std::vector<std::pair<std::string, std::string>>& exports);

// `argv` as one line a POSIX shell reads back into the same words.
std::string ShellLine(const std::vector<std::string>& argv);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_SRUN_COMMAND_H_
