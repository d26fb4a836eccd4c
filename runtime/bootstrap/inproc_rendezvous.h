// InprocRendezvous: the meeting point of the ranks (threads) of one
// InprocGroup. Every collective of InprocBootstrap is one Exchange: each rank
// deposits a blob and waits until all ranks have deposited theirs; the
// completed round is published under a generation counter, so repeated
// exchanges of any sizes are safe without resetting anything.
//
// Failure is sticky: after an Abort, a timeout, or ranks calling different
// collectives in the same round, every current and future Exchange fails with
// the first failure. A wait longer than the timeout fails with grTimeout
// naming the ranks that did not arrive.
//
// Thread safety: all methods may be called from any thread; each rank calls
// Exchange from one thread at a time.
#ifndef GPURUN_RUNTIME_BOOTSTRAP_INPROC_RENDEZVOUS_H_
#define GPURUN_RUNTIME_BOOTSTRAP_INPROC_RENDEZVOUS_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun {

class InprocRendezvous {
 public:
  using Blobs = std::vector<std::vector<std::byte>>;

  // `timeout_s`: longest wait in seconds (0 = none); nullopt reads
  // GPURUN_TIMEOUT at each Exchange.
  InprocRendezvous(int size, std::optional<double> timeout_s);

  // Deposits `mine` for `rank` in the round named `label` ("AllGather #3") and
  // waits for every rank. Returns every rank's blob, indexed by rank; the
  // returned object is shared and immutable.
  StatusOr<std::shared_ptr<const Blobs>> Exchange(int rank, const std::string& label, std::span<const std::byte> mine);

  // Makes every current and future Exchange fail with grRemoteError
  // "rank R aborted with code C: message" (unless the group already failed).
  void Abort(int rank, int code, const std::string& message);

  // The code passed to the first Abort, if any rank aborted.
  std::optional<int> abort_code() const;

  int size() const { return size_; }

 private:
  struct Round {
    std::string label;
    Blobs blobs;
    std::vector<bool> arrived;
    int count = 0;
  };

  void StartRound();
  void Fail(Status status);  // requires mu_
  double TimeoutSeconds() const;
  std::string MissingRanks() const;  // requires mu_

  const int size_;
  const std::optional<double> timeout_s_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  Round round_;                          // the round being filled
  uint64_t generation_ = 0;              // rounds completed
  std::shared_ptr<const Blobs> result_;  // blobs of round `generation_`
  std::optional<Status> failure_;        // sticky
  std::optional<int> abort_code_;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BOOTSTRAP_INPROC_RENDEZVOUS_H_
