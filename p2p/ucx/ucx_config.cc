// ApplyConfigDefaults (ucx_config.h).
#include "p2p/ucx/ucx_config.h"

#include <optional>
#include <string>

#include "p2p/ucx/ucx_status.h"
#include "runtime/base/env.h"

namespace gpurun::p2p {
namespace {

// Sets UCX's option `name` to `value` unless the environment variable `env`
// is set. ucp_config_modify takes transport options too (without the
// transport's prefix: TCP_RX_SEG_SIZE is RX_SEG_SIZE), applied to every
// transport that has the field when it opens; UCX warns at worker creation
// about one no transport took.
Status SetUnlessInEnvironment(ucp_config_t* config, const char* env, const std::string& name, const std::string& value,
                              const char* who) {
  if (GetEnv(env)) return OkStatus();
  return UcsToStatus(ucp_config_modify(config, name.c_str(), value.c_str()),
                     std::string(who) + ": setting " + name + "=" + value);
}

// Whether UCX_TLS leaves the TCP transport in (unset: UCX takes every
// transport it finds). Only TCP has RX_SEG_SIZE, so setting it where TCP is
// out would earn UCX's warning on every run.
bool TcpSelectable() {
  const std::optional<std::string> tls = GetEnv("UCX_TLS");
  if (!tls) return true;
  const std::string& list = *tls;
  const bool named = list.find("tcp") != std::string::npos;
  if (!list.empty() && list[0] == '^') return !named;  // an exclusion list
  return named || list.find("all") != std::string::npos;
}

}  // namespace

Status ApplyConfigDefaults(ucp_config_t* config, uint64_t eager_bytes, const char* who) {
  if (eager_bytes != 0) {
    // Rendezvous from this size on.
    GR_RETURN_IF_ERROR(
        SetUnlessInEnvironment(config, "UCX_RNDV_THRESH", "RNDV_THRESH", std::to_string(eager_bytes + 1), who));
  }
  if (!TcpSelectable()) return OkStatus();
  return SetUnlessInEnvironment(config, "UCX_TCP_RX_SEG_SIZE", "RX_SEG_SIZE", kTcpRxSegSize, who);
}

}  // namespace gpurun::p2p
