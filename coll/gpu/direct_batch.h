// DirectBatch: one-shot allreduces of up to OneShotPeers::batch_max_bytes
// waiting to go out together in one launch of the one-shot kernel (a
// group's calls, GpuColl::RunGroup), on the batch region of the scratch
// (coll/device/oneshot_launch.h): up to kOneShotBatchCalls calls of one
// kernel (element type and operator), each on its own blocks, side by side.
// A call joins only when it reads no byte an earlier call of the batch
// writes and writes none it reads or writes (CallsConflict,
// launch_batch.h); a dependent call goes into the next launch, after this
// one on the stream.
//
// Ranks decide by their own addresses, so one rank may cut a group into
// launches where another does not. That is safe: the calls keep their
// numbers in the region whatever the cuts, no call waits for another, and
// the region's parities allow any cuts of up to kOneShotBatchCalls calls
// a launch (oneshot_launch.h).
#ifndef GPURUN_COLL_GPU_DIRECT_BATCH_H_
#define GPURUN_COLL_GPU_DIRECT_BATCH_H_

#include <array>
#include <cstdint>

#include "coll/device/oneshot_launch.h"
#include "coll/gpu/launch_batch.h"

namespace gpurun::coll {

class DirectBatch {
 public:
  bool empty() const { return ncalls_ == 0; }
  int calls() const { return ncalls_; }
  const void* kernel() const { return kernel_; }
  uint32_t divisor() const { return divisor_; }

  // Whether a call of `kernel` can join: the same kernel, room for it, no
  // conflict with the calls already in.
  bool Accepts(const void* kernel, const CallBytes& bytes) const;
  // Adds a call (Accepts held, or the batch is empty) that runs on `nblocks`
  // blocks; `divisor` is the launch's (avg: the rank count; 0 otherwise).
  void Add(const void* kernel, const void* send, void* recv, uint64_t data_bytes, uint32_t nblocks, uint32_t divisor,
           const CallBytes& bytes);
  // Sets l->call and l->ncalls: each call on the blocks after the previous
  // one's, in the order added; returns the launch's blocks.
  int Fill(DevOneShotLaunch* l) const;
  void Clear();

 private:
  const void* kernel_ = nullptr;
  uint32_t divisor_ = 0;
  int ncalls_ = 0;
  std::array<DevDirectCallArgs, kOneShotBatchCalls> args_{};
  std::array<CallBytes, kOneShotBatchCalls> bytes_{};
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_DIRECT_BATCH_H_
