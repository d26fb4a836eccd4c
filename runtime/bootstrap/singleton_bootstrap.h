// SingletonBootstrap: a job of one rank, for programs started without a
// launcher. Rank 0 of 1 on one node; collectives complete at once.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_SINGLETON_BOOTSTRAP_H_
#define GPURUN_RUNTIME_BOOTSTRAP_SINGLETON_BOOTSTRAP_H_

#include <memory>

#include "runtime/bootstrap/bootstrap.h"

namespace gpurun {

class SingletonBootstrap final : public Bootstrap {
 public:
  // Identity: rank 0 of 1, host from gethostname, job_id "singleton-<pid>".
  // Fails only if the host name cannot be read.
  static StatusOr<std::unique_ptr<SingletonBootstrap>> Create();

  const RankIdentity& identity() const override { return identity_; }
  const char* name() const override { return "singleton"; }

  // Returns {mine}.
  StatusOr<std::vector<std::vector<std::byte>>> AllGather(std::span<const std::byte> mine) override;
  // Nothing to wait for.
  Status Barrier() override;
  // Nobody else to stop: logs the request and returns OK; the caller exits.
  Status Abort(int code, const std::string& message) override;
  Status Finalize() override;

 private:
  explicit SingletonBootstrap(RankIdentity identity) : identity_(std::move(identity)) {}
  Status CheckNotFinalized(const char* op) const;

  RankIdentity identity_;
  bool finalized_ = false;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_SINGLETON_BOOTSTRAP_H_
