// GpuColl: a communicator's collectives on device buffers — the GPU
// executor. Each call is validated by runtime/ first; GpuColl plans it with
// the GPU tuner (coll/tuner/gpu_tuner.h: ring with LL, LL128 or Simple; for
// allreduce also the double binary tree with the same protocols, or
// one-shot / two-shot for small calls), plans a ring or tree call with the
// shared planner, launches one kernel of the kernel table (coll/device) with
// one block per channel (per channel and tree) on the caller's stream, and,
// for a null stream, waits for it. One-shot and two-shot push LL lines into
// the peers' scratch (oneshot_peers.h). Its ring connectors
// (ring_connectors.h), tree connectors (tree_connectors.h) and direct
// scratch are made collectively by the first call that needs them.
//
// Streams: a non-null stream (a cudaStream_t) makes the call stream-ordered:
// it returns once the kernel is enqueued, as NCCL does. A null stream keeps
// MPI semantics: the kernel runs on the legacy default stream (so it follows
// the program's earlier work there) and the call returns when it finished.
// Consecutive calls of one communicator must be ordered (one stream, or
// streams the program orders), as NCCL requires.
//
// Across hosts: the ring's hops between hosts are NET connections, moved by
// a GpuNetProxy (coll/host/gpu_net_proxy.h) that the first ring call makes
// when the communicator spans hosts (or GPURUN_COLL_NET=always puts every
// hop on NET, as it does for the host executor); the tree, one-shot and
// two-shot are then out (the tuner is told why; forcing them is
// InvalidUsage).
//
// Errors: a kernel's waits end on GPURUN_TIMEOUT or when the host sets the
// abort flag (a failed peer seen while a null-stream call waits, or a NET
// connection the proxy saw fail, whose error the report carries); the wait it
// gave up on is recorded and reported, naming the peer, by that call or, for
// stream-ordered calls, by the next one. After such an error the GPU path of
// the communicator is broken: every later call fails saying why.
//
// Thread safety: one call at a time per communicator (MPI rules).
#ifndef GPURUN_COLL_GPU_GPU_COLL_H_
#define GPURUN_COLL_GPU_GPU_COLL_H_

#include <memory>
#include <span>
#include <string>

#include "coll/device/dev_launch.h"
#include "coll/gpu/direct_batch.h"
#include "coll/gpu/launch_batch.h"
#include "coll/gpu/oneshot_peers.h"
#include "coll/gpu/ring_connectors.h"
#include "coll/gpu/tree_connectors.h"
#include "coll/host/comm_link.h"
#include "coll/host/gpu_net_proxy.h"
#include "coll/host/host_coll.h"
#include "coll/tuner/gpu_tuner.h"
#include "coll/tuner/override.h"
#include "coll/wire_format.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

struct GpuCollOptions {
  // Blocks per launch at most (GPURUN_GPU_NCHANNELS; 0: the topology's
  // choice, topo::GpuRingChannels), and threads per block. 256 threads with
  // 128 channels on NVLink: on 2xH200 NV18 (runs of 2026-11-30, gpurun-bench
  // <coll> --device cuda --compare nccl -b 32M..128M -e 8G, NCCL 2.28.3
  // alongside), allreduce at 8 GiB reached 240 / 304 / 324 / 352 / 358 / 363
  // GB/s busbw with 16 / 24 / 32 / 64 / 96 channels of 512 threads / 128 of
  // 256 (NCCL: 345..351 with its 24); broadcast and reduce stayed 1-4 % below
  // NCCL up to 64 x 512 and reached it only at 96 x 512 or 128 x 256, the
  // best of all for the three. FIFO sizes of 4, 8 and 16 MiB made no
  // difference. The cost: blocks on nearly every SM, where NCCL leaves most
  // to the program (GPURUN_GPU_NCHANNELS trades them back; our per-channel
  // rate is lower than NCCL's).
  int max_channels = 0;
  int nthreads = 256;
  uint64_t buffer_bytes = kSimpleDefaultBufferBytes;
  // LL FIFO bytes per connection (NCCL's default LL buffer, 32 KiB of data
  // per step).
  uint64_t ll_buffer_bytes = kLLDefaultBufferBytes;
  // LL128 FIFO bytes per connection, where LL128 is safe (ring_connectors.h):
  // 8 steps of 1024 lines, 120 KiB of data per step. NCCL's 4.7 MiB would
  // take 600 MiB per rank with 128 channels; a call that needs LL128's
  // bandwidth (1-16 MiB) spreads over enough channels to fill these.
  uint64_t ll128_buffer_bytes = 1 << 20;
  // GPURUN_GPU_ONESHOT_BYTES: allreduce calls up to this size may run
  // one-shot or two-shot (oneshot_peers.h; the two share the scratch) on
  // 2..8 ranks of one host; 0: never.
  // GPURUN_GPU_ONESHOT_BLOCKS: most blocks of a one-shot launch (one per
  // 4 KiB below that). On 2xH200 NV18 (run 7 of 2026-11-30, GPURUN_ALGO=
  // allreduce:oneshot gpurun-bench allreduce --device cuda --compare nccl
  // -b 16K -e 4M, NCCL 2.28.3 alongside), one-shot time in us at 256 KiB /
  // 1 / 2 / 4 MiB with 8 blocks 10.9 / 38.1 / 73.7 / 142; 32 blocks 6.6 /
  // 14.8 / 28.7 / 53.3; 64 blocks 6.0 / 12.0 / 20.1 / 39.0; 128 blocks 6.0
  // / 11.5 / 17.9 / 32.3; NCCL 10.7 / 13.7 / 28.5 / 33.8, and the ring 23.4 /
  // 26.9 / 29.6 / 37.0 (run 6). So 128 blocks, and one-shot up to 4 MiB,
  // where it still beats the ring and NCCL. Measured with 2 ranks only: with
  // more ranks each rank pushes to every peer, and the crossover moves down
  // (to be measured on 4 and 8 GPUs). The scratch is 2 x ranks x 2 x this
  // size per rank: 32 MiB with 2 ranks, 128 MiB with 8.
  uint64_t oneshot_bytes = 4 << 20;
  int oneshot_blocks = 128;
  double timeout_s = 0;  // GPURUN_TIMEOUT; 0: none
};

// The options from the parameter registry (GPURUN_GPU_*, GPURUN_TIMEOUT).
StatusOr<GpuCollOptions> LoadGpuCollOptions();

class GpuColl {
 public:
  // Not collective. `device`: the CUDA ordinal every call's buffers are on.
  static StatusOr<std::unique_ptr<GpuColl>> Create(CommLink& link, int device, const GpuCollOptions& options);
  ~GpuColl();
  GpuColl(const GpuColl&) = delete;
  GpuColl& operator=(const GpuColl&) = delete;

  int device() const { return device_; }

  // Runs validated calls whose buffers are device memory of device(), in
  // order, on one stream: a single call, or a group's (runtime/group.h),
  // where consecutive ring or tree calls of one kernel (element type and
  // operator) go out in one launch while each touches no bytes an earlier
  // one of the launch writes (launch_batch.h); a one-shot or two-shot call,
  // a dependent call or another kernel starts the next launch. A null
  // stream returns when every call finished. The first error stops the
  // rest.
  Status RunGroup(std::span<const CollCall> calls, void* stream);

  // A barrier on `stream` (not null): work queued after it on any rank
  // starts only once every rank's stream reached it — a one-element
  // allreduce of a device word of this object's.
  Status Barrier(void* stream);

 private:
  GpuColl(CommLink& link, int device, const GpuCollOptions& options) : link_(link), device_(device), opt_(options) {}
  Status Init();
  // Whether GPURUN_ALGO / GPURUN_PROTO bind a call: the program's calls
  // yes, the runtime's own (Barrier) no.
  enum class Choice { kOverride, kFree };

  // InvalidUsage when GPURUN_ALGO / GPURUN_PROTO exclude every pair the GPU
  // path has for `func` — ring with each protocol, and for allreduce also
  // the tree's, oneshot/LL and twoshot/LL (checked first by every call, also
  // with one rank or count 0, as the host executor does).
  Status CheckOverride(Func func) const;
  Status CheckBroken() const;
  Status CheckDeviceError();
  // RunGroup past the override check.
  Status RunChecked(std::span<const CollCall> calls, void* stream, Choice choice);
  Status RunSingle(const CollCall& call, void* stream);
  Status Launch(const CollCall& call, void* stream, Choice choice);
  // The tuner's (algorithm, protocol, channels); a forced choice that
  // cannot be honoured is InvalidUsage saying why.
  StatusOr<TuneChoice> Choose(const CollCall& call, Choice choice) const;
  // Why this communicator cannot run one-shot or two-shot at all ("" when
  // it can).
  std::string OneShotLimit() const;
  // Why ring hops go over NET ("" when none does): a rank on another host,
  // or GPURUN_COLL_NET=always.
  std::string NetReason() const;
  // Why it cannot run the tree ("" when it can): the GPU tree has no NET
  // connections yet.
  std::string TreeLimit() const;
  // A ring or tree call (choice.algo), planned and added to batch_ (which
  // is launched first when the call cannot join it; direct_ before it).
  Status LaunchPlanned(const CollCall& call, void* stream, const TuneChoice& choice);
  // Launches what is pending (batch_ or direct_; at most one of them holds
  // calls), on `stream`.
  Status Flush(void* stream);
  Status FlushRing(void* stream);
  Status FlushDirect(void* stream);
  // A one-shot or two-shot call (`algo`) over the direct scratch: a
  // one-shot call up to the batch region's size joins direct_ (batch_
  // launched first), any other goes out at once in the large region.
  Status LaunchDirect(const CollCall& call, void* stream, Algo algo);
  // A direct launch's fields but the calls, for `region`.
  DevOneShotLaunch DirectLaunch(DirectRegion region, uint32_t divisor) const;
  Status WaitDone();

  CommLink& link_;
  int device_;
  GpuCollOptions opt_;
  CollOverride override_;             // GPURUN_ALGO / GPURUN_PROTO, read when made (as HostColl)
  std::unique_ptr<GpuNetProxy> net_;  // before ring_: it outlives the ring's NET sides
  std::unique_ptr<RingConnectors> ring_;
  std::unique_ptr<TreeConnectors> tree_;
  std::unique_ptr<OneShotPeers> oneshot_;
  LaunchBatch batch_;                // the planned works not launched yet (empty between calls)
  DirectBatch direct_;               // the one-shot calls not launched yet (empty between calls)
  std::string oneshot_limit_;        // OneShotLimit(), from Init
  std::string net_reason_;           // NetReason(), from Init
  std::string tree_limit_;           // TreeLimit(), from Init
  std::string ll128_net_limit_;      // why LL128 is out before the ring exists: a NET hop ("" when none)
  uint64_t oneshot_max_bytes_ = 0;   // largest one-shot / two-shot call: opt_.oneshot_bytes, or 0 with a limit
  int forced_channels_ = 0;          // GPURUN_NCHANNELS, read at Init; 0: the tuner's
  DevError* error_ = nullptr;        // host-mapped
  uint32_t* abort_ = nullptr;        // host-mapped
  int32_t* barrier_word_ = nullptr;  // device memory of Barrier
  void* done_event_ = nullptr;       // cudaEvent_t of null-stream calls
  std::string broken_;               // why the GPU path stopped, "" while it works
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_GPU_COLL_H_
