// SetEagerBound (ucx_config.h).
#include "p2p/ucx/ucx_config.h"

#include <cstdlib>
#include <string>

#include "p2p/ucx/ucx_status.h"

namespace gpurun::p2p {

Status SetEagerBound(ucp_config_t* config, uint64_t eager_bytes, const char* who) {
  if (eager_bytes == 0 || std::getenv("UCX_RNDV_THRESH") != nullptr) return OkStatus();
  const std::string value = std::to_string(eager_bytes + 1);  // rendezvous from this size on
  return UcsToStatus(ucp_config_modify(config, "RNDV_THRESH", value.c_str()),
                     std::string(who) + ": setting RNDV_THRESH=" + value);
}

}  // namespace gpurun::p2p
