// The name of the host this process runs on, for RankIdentity::host.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_HOST_NAME_H_
#define GPURUN_RUNTIME_BOOTSTRAP_HOST_NAME_H_

#include <string>

#include "runtime/base/status.h"

namespace gpurun {

// gethostname(2), as a string; a SystemError if the call fails.
StatusOr<std::string> LocalHostName();

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_HOST_NAME_H_
