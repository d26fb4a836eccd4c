// LaunchBatch: the planned works of one or more ring (or tree) calls that
// run in one kernel launch — a single call, or consecutive calls of a
// group fused (GpuColl::RunGroup, NCCL's group aggregation). Every call of a
// batch uses the same kernel (the ring or tree kernel of one element type
// and operator); each keeps its own buffers (DevBuffers) and protocol.
//
// Lanes: a work runs on one lane — its ring channel, or its (channel, tree)
// for the tree kernel — and a block runs every work of one lane in the
// order added, so each connection's steps come in the same order on every
// rank and the step counters carry from one work to the next. Different
// lanes run side by side, so the works of two calls overlap in time: a call
// joins only when it reads no byte an earlier call of the batch writes and
// writes none it reads or writes (Conflicts); a dependent call goes into
// the next launch, after this one on the stream.
//
// Ranks decide by their own addresses, so one rank may split where another
// fuses. That is safe: every rank runs each lane's works in the same order
// whatever the launch boundaries (the step counters carry across launches),
// and no lane waits for another, so a rank whose block runs call A's work
// and then B's on a lane meets a peer that runs them in two launches.
#ifndef GPURUN_COLL_GPU_LAUNCH_BATCH_H_
#define GPURUN_COLL_GPU_LAUNCH_BATCH_H_

#include <array>
#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/host/host_coll.h"
#include "coll/planner/work.h"

namespace gpurun::coll {

// The bytes a call reads and writes on this rank, as [begin, end) address
// ranges (empty: begin == end).
struct CallBytes {
  uintptr_t read_begin = 0, read_end = 0;
  uintptr_t write_begin = 0, write_end = 0;
};

// What `call` reads and writes on rank `rank` of `nranks` (NCCL's buffer
// sizes: allgather writes nranks blocks, reduce-scatter reads them; a
// broadcast reads only at the root, a reduce writes only there).
CallBytes BytesOfCall(const CollCall& call, int nranks, int rank);

// Whether a call of bytes `later` must wait for one of bytes `earlier`: it
// reads or writes a byte the earlier one writes, or writes one it reads.
bool CallsConflict(const CallBytes& earlier, const CallBytes& later);

class LaunchBatch {
 public:
  bool empty() const { return nworks_ == 0; }
  int calls() const { return ncalls_; }
  int works() const { return nworks_; }
  const void* kernel() const { return kernel_; }
  bool tree() const { return tree_; }

  // Whether a call of `kernel` with `nworks` works can join: the same
  // kernel, room for its works, no conflict with the calls already in.
  bool Accepts(const void* kernel, int nworks, const CallBytes& bytes) const;
  // Adds a call's works (Accepts held, or the batch is empty and nworks
  // fits). `tree`: the works are the tree kernel's (lanes per tree).
  void Add(const void* kernel, bool tree, const WorkDesc* works, int nworks, const DevBuffers& buffers,
           const CallBytes& bytes);
  // Lays out the works in `l` by block (lanes in order of first use,
  // works in the order added) and sets l->nblocks; the rest of *l is the
  // caller's.
  void Fill(DevLaunch* l) const;
  void Clear();

 private:
  bool Conflicts(const CallBytes& bytes) const;

  const void* kernel_ = nullptr;
  bool tree_ = false;
  int nworks_ = 0;
  int ncalls_ = 0;
  std::array<WorkDesc, kMaxDeviceWorks> works_{};
  std::array<uint16_t, kMaxDeviceWorks> call_of_{};  // works_[i]'s call
  std::array<uint16_t, kMaxDeviceWorks> lane_{};
  std::array<DevBuffers, kMaxDeviceWorks> buffers_{};  // per call
  std::array<CallBytes, kMaxDeviceWorks> bytes_{};     // per call
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_LAUNCH_BATCH_H_
