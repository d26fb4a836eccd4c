// CreateBootstrap: picks the bootstrap per GPURUN_BOOTSTRAP (see bootstrap.h).
#include <memory>

#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#include "runtime/bootstrap/bootstrap.h"
#include "runtime/bootstrap/pmix_bootstrap.h"
#include "runtime/bootstrap/singleton_bootstrap.h"

namespace gpurun {
namespace {

// Whether the environment names a PMIx server: a launcher sets PMIX_NAMESPACE
// and PMIX_SERVER_URI* for its clients.
bool PmixServerAdvertised() {
  return GetEnv("PMIX_NAMESPACE").has_value() || !EnvNamesWithPrefix("PMIX_SERVER_URI").empty();
}

StatusOr<std::unique_ptr<Bootstrap>> Singleton() {
  GR_ASSIGN_OR_RETURN(std::unique_ptr<SingletonBootstrap> singleton, SingletonBootstrap::Create());
  return std::unique_ptr<Bootstrap>(std::move(singleton));
}

StatusOr<std::unique_ptr<Bootstrap>> ForcedPmix() {
  bool no_server = false;
  StatusOr<std::unique_ptr<PmixBootstrap>> pmix = PmixBootstrap::Connect(&no_server);
  if (pmix.ok()) return std::unique_ptr<Bootstrap>(std::move(*pmix));
  if (no_server && !PmixServerAdvertised()) {
    return InvalidUsage(
        "GPURUN_BOOTSTRAP=pmix, but this process was not started by a PMIx launcher (no PMIX_NAMESPACE or "
        "PMIX_SERVER_URI* in the environment, and PMIx_Init found no server): start it with gpurun or "
        "srun --mpi=pmix, or set GPURUN_BOOTSTRAP=auto or singleton");
  }
  return pmix.status().WithContext("GPURUN_BOOTSTRAP=pmix");
}

StatusOr<std::unique_ptr<Bootstrap>> Auto() {
  if (!PmixServerAdvertised()) {
    GR_LOG(Info, Bootstrap) << "no PMIx server in the environment: singleton bootstrap";
    return Singleton();
  }
  bool no_server = false;
  StatusOr<std::unique_ptr<PmixBootstrap>> pmix = PmixBootstrap::Connect(&no_server);
  if (pmix.ok()) return std::unique_ptr<Bootstrap>(std::move(*pmix));
  if (!no_server) return pmix.status().WithContext("GPURUN_BOOTSTRAP=auto");
  GR_LOG(Info, Bootstrap) << "the environment names a PMIx server but it is unreachable (" << pmix.status().message()
                          << "): falling back to the singleton bootstrap";
  return Singleton();
}

}  // namespace

StatusOr<std::unique_ptr<Bootstrap>> CreateBootstrap() {
  switch (params::kBootstrap.Get()) {
    case params::kBootstrapSingleton: return Singleton();
    case params::kBootstrapPmix: return ForcedPmix();
    case params::kBootstrapAuto:
    default: return Auto();
  }
}

}  // namespace gpurun
