// OneShotPeers: the scratch buffers of a communicator's one-shot and
// two-shot allreduce on device buffers (coll/device/oneshot_launch.h,
// twoshot_layout.h). Each rank holds one buffer of two regions: the large
// one, 2 x nranks slots of LL lines for calls of up to max_bytes (two-shot
// tokens included), and the batch one, kOneShotBatchParities x nranks slots
// for one-shot calls of up to batch_max_bytes; every rank maps every other
// rank's buffer and writes its slots there. The buffer
// is device memory shared through CUDA IPC or, when some peer's GPU has no
// peer access to this one (or GPURUN_GPU_PATH=host), host shared memory
// registered with CUDA (peer_memory.h). Also holds the rank's call counter
// and the launch's finished-block counter in device memory.
//
// Errors: ranks on different hosts are Unsupported (naming the peer); a rank
// whose set-up failed fails every rank's, naming it.
#ifndef GPURUN_COLL_GPU_ONESHOT_PEERS_H_
#define GPURUN_COLL_GPU_ONESHOT_PEERS_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "coll/device/oneshot_launch.h"
#include "coll/gpu/peer_memory.h"
#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Which scratch region a launch uses (oneshot_launch.h).
enum class DirectRegion { kLarge, kBatch };

class OneShotPeers {
 public:
  // Collective over `link` (2..kMaxOneShotRanks ranks).
  static StatusOr<std::unique_ptr<OneShotPeers>> Create(CommLink& link, int device, uint64_t max_bytes);
  ~OneShotPeers();
  OneShotPeers(const OneShotPeers&) = delete;
  OneShotPeers& operator=(const OneShotPeers&) = delete;

  uint64_t max_bytes() const { return max_bytes_; }
  // The largest call of the batch region: kOneShotBatchMaxBytes, or less
  // when max_bytes is.
  uint64_t batch_max_bytes() const { return batch_max_bytes_; }
  PeerPath path() const { return mine_->path(); }
  // Sets the launch's scratch, counter, parity, rank and size fields for
  // `region`.
  void Fill(DevOneShotLaunch* launch, DirectRegion region) const;

 private:
  OneShotPeers() = default;
  StatusOr<PeerPath> ChoosePath(CommLink& link);
  Status Exchange(CommLink& link);
  uint64_t LargeRegionBytes() const;
  uint64_t BatchRegionBytes() const;

  int device_ = -1;
  int rank_ = 0;
  int nranks_ = 0;
  uint64_t max_bytes_ = 0;
  uint64_t slot_bytes_ = 0;  // the large region's
  uint64_t batch_max_bytes_ = 0;
  uint64_t batch_slot_bytes_ = 0;
  std::unique_ptr<OwnMemory> mine_;
  std::vector<std::unique_ptr<PeerMapping>> peers_;  // by rank; null for this one
  void* counters_ = nullptr;                         // device: each region's Counters (oneshot_peers.cc)
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_ONESHOT_PEERS_H_
