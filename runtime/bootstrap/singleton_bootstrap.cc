// SingletonBootstrap (see singleton_bootstrap.h).
#include "runtime/bootstrap/singleton_bootstrap.h"

#include <unistd.h>

#include "runtime/base/log.h"
#include "runtime/bootstrap/host_name.h"

namespace gpurun {

StatusOr<std::unique_ptr<SingletonBootstrap>> SingletonBootstrap::Create() {
  RankIdentity identity;
  GR_ASSIGN_OR_RETURN(identity.host, LocalHostName());
  identity.job_id = "singleton-" + std::to_string(getpid());
  GR_LOG(Info, Bootstrap) << "singleton bootstrap: rank 0 of 1 on " << identity.host << ", job " << identity.job_id;
  return std::unique_ptr<SingletonBootstrap>(new SingletonBootstrap(std::move(identity)));
}

Status SingletonBootstrap::CheckNotFinalized(const char* op) const {
  if (finalized_) return InvalidUsage(std::string("singleton bootstrap: ") + op + " after Finalize");
  return OkStatus();
}

StatusOr<std::vector<std::vector<std::byte>>> SingletonBootstrap::AllGather(std::span<const std::byte> mine) {
  GR_RETURN_IF_ERROR(CheckNotFinalized("AllGather"));
  std::vector<std::vector<std::byte>> all;
  all.emplace_back(mine.begin(), mine.end());
  return all;
}

Status SingletonBootstrap::Barrier() { return CheckNotFinalized("Barrier"); }

Status SingletonBootstrap::Abort(int code, const std::string& message) {
  GR_LOG(Info, Bootstrap) << "singleton bootstrap: abort with code " << code << ": " << message;
  return OkStatus();
}

Status SingletonBootstrap::Finalize() {
  GR_RETURN_IF_ERROR(CheckNotFinalized("Finalize"));
  finalized_ = true;
  return OkStatus();
}

}  // namespace gpurun
