// The default HostColl factory of a Context (context.h). Whether the host
// executor (coll/host, target gpurun_coll_host) is linked in is decided when
// the build is configured (runtime/CMakeLists.txt defines
// GPURUN_HAVE_HOST_COLL); without it the ring/tree collectives fail with a
// clear grUnsupported instead of silently doing something else.
#include "runtime/context.h"

namespace gpurun {

Context::HostCollFactory DefaultHostCollFactory() {
#if GPURUN_HAVE_HOST_COLL
  return [](coll::CommLink& link) { return coll::HostColl::Create(link); };
#else
  return [](coll::CommLink&) -> StatusOr<std::unique_ptr<coll::HostColl> > {
    return Unsupported(
        "the host collective engine (coll/host, target gpurun_coll_host) is not built into this gpurun; ring and "
        "tree collectives are unavailable");
  };
#endif
}

}  // namespace gpurun
