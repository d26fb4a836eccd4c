// PmixBootstrap: the bootstrap of a job started by a PMIx server — gpurun's
// embedded server or Slurm's `srun --mpi=pmix` (Open MPI's mpirun works too).
//
// Identity comes from the server's job data: PMIX_JOB_SIZE, PMIX_LOCAL_SIZE,
// PMIX_NUM_NODES (job level); PMIX_LOCAL_RANK, PMIX_NODEID, PMIX_HOSTNAME
// (this process); job_id is the PMIx namespace.
// AllGather is a modex: PMIx_Put of key "gpurun.ag.<n>", PMIx_Commit,
// PMIx_Fence over the namespace with data collection, then PMIx_Get of each
// peer's key. Barrier is a fence without data. Fences carry PMIX_TIMEOUT from
// GPURUN_TIMEOUT (omitted when 0); a timeout is grTimeout naming the
// operation (PMIx does not say which ranks are missing), a lost server
// grRemoteError. This header does not expose PMIx types.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_PMIX_BOOTSTRAP_H_
#define GPURUN_RUNTIME_BOOTSTRAP_PMIX_BOOTSTRAP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/bootstrap/bootstrap.h"

namespace gpurun {

class PmixBootstrap final : public Bootstrap {
 public:
  // PMIx_Init, then reads the identity. On failure PMIx is finalised again.
  // When `no_server` is given it is set to whether the failure was that no
  // PMIx server could be reached (PMIx_Init gave PMIX_ERR_UNREACH), which
  // callers may treat as "not launched by a PMIx launcher".
  static StatusOr<std::unique_ptr<PmixBootstrap>> Connect(bool* no_server = nullptr);

  // Calls PMIx_Finalize if Finalize was not called (no barrier).
  ~PmixBootstrap() override;
  PmixBootstrap(const PmixBootstrap&) = delete;
  PmixBootstrap& operator=(const PmixBootstrap&) = delete;

  const RankIdentity& identity() const override { return identity_; }
  const char* name() const override { return "pmix"; }

  StatusOr<std::vector<std::vector<std::byte>>> AllGather(std::span<const std::byte> mine) override;
  Status Barrier() override;
  // PMIx_Abort(code, message) for the whole namespace. OK means the server
  // took the request and is tearing the job down; the caller should exit.
  Status Abort(int code, const std::string& message) override;
  // A barrier, then PMIx_Finalize (also when the barrier failed).
  Status Finalize() override;

 private:
  PmixBootstrap(std::string nspace, uint32_t pmix_rank) : nspace_(std::move(nspace)), pmix_rank_(pmix_rank) {}

  Status ReadIdentity();
  // A fence over the namespace; `what` names the operation in errors.
  Status Fence(bool collect_data, const std::string& what);
  Status CheckUsable(const char* op) const;

  std::string nspace_;
  uint32_t pmix_rank_;
  RankIdentity identity_;
  uint64_t allgathers_ = 0;
  uint64_t barriers_ = 0;
  std::atomic<bool> finalized_{false};  // read by Abort from any thread
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_PMIX_BOOTSTRAP_H_
