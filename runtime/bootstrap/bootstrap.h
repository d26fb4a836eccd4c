// The bootstrap: how a rank learns who it is and exchanges small blobs with
// the other ranks of its job before any transport exists.
//
// Implementations: PmixBootstrap (under gpurun or `srun --mpi=pmix`),
// SingletonBootstrap (one rank, no launcher), InprocBootstrap (ranks are
// threads of one process; the test double for multi-rank unit tests).
// CreateBootstrap() picks one according to GPURUN_BOOTSTRAP.
//
// Thread safety: one thread per rank drives a Bootstrap at a time; Abort may
// be called from any thread. Collective calls (AllGather, Barrier) must be
// made by every rank in the same order. Every collective honours
// GPURUN_TIMEOUT and fails with grTimeout or grRemoteError (naming the peer
// or peers it still waits for where it can know them), never hangs silently.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_BOOTSTRAP_H_
#define GPURUN_RUNTIME_BOOTSTRAP_BOOTSTRAP_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun {

// Who this rank is, as the launcher or resource manager told it.
struct RankIdentity {
  int rank = 0;
  int size = 1;
  int local_rank = 0;  // index among the ranks of this node
  int local_size = 1;  // ranks on this node
  int node_id = 0;     // dense node index in 0..num_nodes-1
  int num_nodes = 1;
  std::string host;    // host name of this rank's node
  std::string job_id;  // namespace / job identifier, unique per job
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  // Identity is known once the bootstrap is created.
  virtual const RankIdentity& identity() const = 0;
  // "pmix", "singleton", "inproc".
  virtual const char* name() const = 0;

  // Every rank contributes `mine`; returns all contributions indexed by rank.
  // Blobs may differ in size between ranks.
  virtual StatusOr<std::vector<std::vector<std::byte>>> AllGather(std::span<const std::byte> mine) = 0;

  // Returns once every rank has entered.
  virtual Status Barrier() = 0;

  // Ends the whole job with `code`; the launcher kills every rank and exits
  // with it. Not collective; may be called from any thread. OK means the
  // request was delivered (or, for a singleton, that there is nobody else to
  // stop): the caller should then exit with `code` itself, as the launcher may
  // not have killed it yet. An error means the request could not be delivered.
  virtual Status Abort(int code, const std::string& message) = 0;

  // Leaves the job's bootstrap (collective: a barrier, then the release of
  // its resources). Called once, at grFinalize; a later AllGather, Barrier
  // or Finalize fails with grInvalidUsage.
  virtual Status Finalize() = 0;
};

// Picks the bootstrap per GPURUN_BOOTSTRAP:
//  - singleton: SingletonBootstrap;
//  - pmix: PmixBootstrap; without a reachable PMIx server an error
//    (grInvalidUsage when the environment names no server at all);
//  - auto: PmixBootstrap when the environment names a PMIx server
//    (PMIX_NAMESPACE or PMIX_SERVER_URI*), falling back to singleton (logged
//    at INFO) if that server is unreachable; otherwise singleton without
//    initialising PMIx.
// Call once per process, after the parameters are loaded.
StatusOr<std::unique_ptr<Bootstrap>> CreateBootstrap();

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_BOOTSTRAP_H_
