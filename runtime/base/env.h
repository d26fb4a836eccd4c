// The one place that reads the process environment. Parameters (GPURUN_*) go
// through the parameter registry (params.h); other variables the runtime must
// look at (PMIX_*, SLURM_*) through GetEnv, so that every read is findable.
#ifndef GPURUN_RUNTIME_BASE_ENV_H_
#define GPURUN_RUNTIME_BASE_ENV_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpurun {

// Looks a variable up; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

// The value of `name` in this process's environment, nullopt when unset.
std::optional<std::string> GetEnv(std::string_view name);

// A lookup over this process's environment.
EnvLookup ProcessEnv();

// Names of every variable in this process's environment starting with `prefix`.
std::vector<std::string> EnvNamesWithPrefix(std::string_view prefix);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BASE_ENV_H_
