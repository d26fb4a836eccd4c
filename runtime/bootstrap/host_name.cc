// LocalHostName (see host_name.h).
#include "runtime/bootstrap/host_name.h"

#include <unistd.h>

#include <cerrno>
#include <climits>

namespace gpurun {

StatusOr<std::string> LocalHostName() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return ErrnoError("gethostname", errno);
  return std::string(name);
}

}  // namespace gpurun
