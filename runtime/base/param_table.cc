// The declaration of every GPURUN_* parameter. Keep each description a single
// sentence saying what the parameter does and its unit; --print-params shows it.
#include "runtime/base/param_table.h"

#include <algorithm>

#include "runtime/base/env.h"
#include "runtime/base/log.h"

namespace gpurun::params {

const EnumParam kDebug("GPURUN_DEBUG", "WARN", {"NONE", "WARN", "INFO", "TRACE"},
                       "Log level: NONE, WARN (warnings and errors), INFO, TRACE.");

const StringParam kDebugSubsys(
    "GPURUN_DEBUG_SUBSYS", "ALL",
    "Subsystems logged at INFO/TRACE, comma-separated (INIT,BOOTSTRAP,TOPO,P2P,NET,COLL,TUNING,ENV,LAUNCH "
    "or ALL); a leading ^ excludes the listed ones.",
    [](std::string_view text) { return ParseSubsysMask(text).status(); });

const DurationParam kTimeout("GPURUN_TIMEOUT", "600",
                             "Longest any blocking wait (fence, receive, barrier) may take before it fails "
                             "naming what it waited for; 0 waits forever.");

const EnumParam kBootstrap("GPURUN_BOOTSTRAP", "auto", {"auto", "pmix", "singleton"},
                           "How ranks find each other: pmix (gpurun or srun --mpi=pmix), singleton (one rank, "
                           "no launcher), auto (pmix when a PMIx server is reachable, else singleton).");

const DurationParam kKillGrace("GPURUN_KILL_GRACE", "1",
                               "gpurun: time between SIGTERM and SIGKILL when it tears a job down.");

std::vector<std::string> UnknownGpurunVariables() {
  std::vector<std::string> unknown;
  for (const std::string& name : EnvNamesWithPrefix("GPURUN_")) {
    const bool launcher_var =
        std::find(std::begin(kLauncherVariables), std::end(kLauncherVariables), name) != std::end(kLauncherVariables);
    if (!launcher_var && ParamRegistry::Global().Find(name) == nullptr) unknown.push_back(name);
  }
  return unknown;
}

}  // namespace gpurun::params
