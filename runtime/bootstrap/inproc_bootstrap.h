// InprocBootstrap: the test double of the bootstrap. The ranks of a job are
// threads of one process; an InprocGroup is the job and hands out one
// Bootstrap per rank.
//
//   StatusOr<InprocGroup> group = InprocGroup::Create(8, {.ranks_per_node = 4});
//   std::vector<std::unique_ptr<Bootstrap>> ranks = group->TakeAll();
//   // start one thread per rank, each driving ranks[r]
//
// Collectives follow the Bootstrap contract: every rank calls them in the same
// order (a mismatch fails the whole group with grInvalidUsage); Abort by any
// rank makes every current and future wait fail with grRemoteError
// "rank R aborted with code C: message"; a wait longer than the timeout fails
// with grTimeout naming the missing ranks ("waiting for ranks 2, 5 of 8 in
// AllGather #3"), for every waiter and every later call. The first failure of
// a group is final. Finalize is a barrier.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_INPROC_BOOTSTRAP_H_
#define GPURUN_RUNTIME_BOOTSTRAP_INPROC_BOOTSTRAP_H_

#include <memory>
#include <optional>
#include <vector>

#include "runtime/bootstrap/bootstrap.h"

namespace gpurun {

class InprocRendezvous;

struct InprocOptions {
  // Fake node layout: ranks [k*n, (k+1)*n) form node k. 0 puts every rank on
  // one node.
  int ranks_per_node = 0;
  // Longest wait in seconds (0 = none); unset reads GPURUN_TIMEOUT at each wait.
  std::optional<double> timeout_s = std::nullopt;
};

class InprocGroup {
 public:
  // A job of `size` ranks (>= 1). Fails with grInvalidArgument on a bad size
  // or layout.
  static StatusOr<InprocGroup> Create(int size, InprocOptions options = {});

  InprocGroup(InprocGroup&&) = default;
  InprocGroup& operator=(InprocGroup&&) = default;

  // The bootstrap of `rank`; each rank can be taken once. Bootstraps share the
  // group's state and may outlive the InprocGroup object. Not thread-safe:
  // hand ranks out from one thread before starting the rank threads.
  StatusOr<std::unique_ptr<Bootstrap>> Take(int rank);
  // Take(0) .. Take(size-1); empty if any rank was already taken.
  std::vector<std::unique_ptr<Bootstrap>> TakeAll();

  int size() const { return size_; }
  // The identity rank `rank` gets (host "<hostname>" or "<hostname>-node<k>",
  // job_id "inproc-<pid>-<n>").
  RankIdentity IdentityOf(int rank) const;
  // The code of the first Abort in this group, if any rank aborted.
  std::optional<int> abort_code() const;

 private:
  InprocGroup(int size, int ranks_per_node, std::string host, std::string job_id,
              std::shared_ptr<InprocRendezvous> rendezvous);

  int size_;
  int ranks_per_node_;
  std::string host_;
  std::string job_id_;
  std::shared_ptr<InprocRendezvous> rendezvous_;
  std::vector<bool> taken_;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_INPROC_BOOTSTRAP_H_
