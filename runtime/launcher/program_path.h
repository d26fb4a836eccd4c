// Finds the program to run the way execvp would (a name with a '/' is used as
// is; otherwise each PATH entry is tried, an empty entry meaning "."), and
// checks that it is an executable regular file, before anything is forked.
#ifndef GPURUN_RUNTIME_LAUNCHER_PROGRAM_PATH_H_
#define GPURUN_RUNTIME_LAUNCHER_PROGRAM_PATH_H_

#include <optional>
#include <string>
#include <string_view>

#include "runtime/base/status.h"

namespace gpurun::launcher {

// The path to exec for `program`, or InvalidUsage saying why not ("not found
// in PATH", "permission denied", "is a directory"). `path_env` is the value of
// PATH; nullopt means unset (then "/usr/local/bin:/bin:/usr/bin", as execvp).
StatusOr<std::string> ResolveProgram(std::string_view program, const std::optional<std::string>& path_env);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_PROGRAM_PATH_H_
