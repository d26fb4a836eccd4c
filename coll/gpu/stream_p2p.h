// StreamP2p: a communicator's stream-ordered point-to-point on GPU buffers
// (grSend/grRecv/grSendrecv/grIsend/grIrecv with a real stream), in NCCL's
// ncclSend/ncclRecv shape: each call enqueues one kernel
// (coll/device/p2p_kernel.h) on the caller's stream and returns; the kernel
// moves the message through the pair's FIFO connection
// (p2p_connection.h), made by the pair's first stream-ordered call.
//
// Matching: the stream-ordered messages from one rank to another form their
// own ordered channel, received in the order sent, by stream-ordered
// receives only (as NCCL's). A receive names its source (no
// GR_ANY_SOURCE); its tag must be the message's or GR_ANY_TAG — a
// mismatched message is dropped and reported; a message larger than the
// receive's room is cut (nothing is written past the room) and reported.
//
// Order between calls: every stream-ordered call of a communicator runs
// after the previous one, also across streams (an event links them), as
// NCCL orders a communicator's operations. So a send then a receive of the
// same pair on both ranks waits, as MPI's blocking send may: use grSendrecv,
// which moves both in one kernel, or a group (RunGroup), which moves any
// number in one kernel.
//
// Errors found later (a wait that timed out after GPURUN_TIMEOUT or was
// aborted, a truncated or mismatched message) are returned by the next
// stream-ordered call of the communicator, naming the peer; a receive's
// status, when given, is filled when its stream gets past it (with the error
// of that receive). After a failed wait the connection state is unknown and
// every later call fails saying why.
//
// Across hosts (or with GPURUN_COLL_NET=always) a pair's connection is NET
// (p2p_connection.h), its steps moved by a GpuNetProxy of this object's,
// made with the first such pair without any collective step (the pair
// swaps UCX addresses); a NET failure aborts the kernels and is reported,
// naming the peer, by the next call.
//
// Thread safety: calls are serialised by a mutex.
#ifndef GPURUN_COLL_GPU_STREAM_P2P_H_
#define GPURUN_COLL_GPU_STREAM_P2P_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "coll/device/p2p_launch.h"
#include "coll/gpu/p2p_connection.h"
#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Defaults measured on 2x H200 NV18 (run 12 of 2026-11-30, gpurun-bench
// sendrecv --device cuda -b 1M -e 4G, NCCL 2.28.3 alongside at 364 GB/s):
// busbw at 4 GiB was 229 / 316 / 343 / 343 GB/s with 32 channels of 512K /
// 1M / 2M / 4M FIFOs, 315 with 16 of 4M, 358 with 48 of 2M, 354 with 64 of
// 1M and 365 with 64 of 2M. The cost: 128 MiB of FIFOs per peer and
// direction, made only for pairs that use a stream, and up to 64 blocks per
// direction while a message moves (GPURUN_P2P_NCHANNELS trades them back).
struct StreamP2pOptions {
  int nchannels = 64;               // GPURUN_P2P_NCHANNELS
  uint64_t buffer_bytes = 2 << 20;  // GPURUN_P2P_BUFFSIZE
  // GPURUN_P2P_SELF_COPY_BLOCKS: blocks of the SM kernel that copies a
  // rank's own block beside its messages (CopyBeside); 0: the copy engines.
  // On 2xH200 NV18 (run 3 of 2026-11-30, gpurun-bench gather|scatter|alltoall
  // --device cuda --compare nccl -b 64M -e 4G -f 4, NCCL 2.28.3 alongside),
  // busbw gpurun/nccl at 4 GiB out of place, gather / scatter / alltoall:
  // copy engines 0.93 / 0.90 / 0.92; 8 blocks 0.95 / 0.97 / 0.71; 16 blocks
  // 0.97 / 0.97 / 1.01; 32 blocks 0.97 / 0.97 / 1.07; 64 blocks 0.97 / 0.99
  // / 1.06. The copy engines' burst (2 GiB at HBM speed) slowed the
  // messages beside it; 32 blocks spread the copy over the transfer.
  int self_copy_blocks = 32;
  double timeout_s = 0;  // GPURUN_TIMEOUT; 0: none
  int connect_tag = 0;   // internal-context tags of the pair set-up and teardown
  int close_tag = 0;
};

// The options from the parameter registry, with the runtime's two tags.
StatusOr<StreamP2pOptions> LoadStreamP2pOptions(int connect_tag, int close_tag);

struct StreamSend {
  const void* buf;
  uint64_t bytes;
  int peer;  // communicator rank
  int tag;
};

struct StreamRecv {
  void* buf;
  uint64_t room;  // bytes the receive may write
  int peer;
  int tag;                       // or GR_ANY_TAG
  grStatus_t* status = nullptr;  // filled when the stream gets past the receive; null: not wanted
  size_t type_size = 1;          // for status->count
};

class StreamP2p {
 public:
  // Not collective. `device`: the CUDA ordinal every call's buffers are on.
  static StatusOr<std::unique_ptr<StreamP2p>> Create(CommLink& link, int device, const StreamP2pOptions& options);
  // Waits for this communicator's kernels (setting their abort flag when a
  // peer failed), then says goodbye to each connected peer before freeing.
  ~StreamP2p();
  StreamP2p(const StreamP2p&) = delete;
  StreamP2p& operator=(const StreamP2p&) = delete;

  int device() const { return device_; }

  // Enqueues a send, a receive, or both (one kernel) on `stream` (a
  // cudaStream_t, not null). A rank to itself: only a send and a receive
  // together (else Unsupported: the send would wait for a receive queued
  // behind it).
  Status Run(const StreamSend* send, const StreamRecv* recv, void* stream);

  // A group's sends and receives (grGroupStart / grGroupEnd) on `stream`:
  // messages to this rank itself pair up in order and are copied, the rest
  // run in one kernel, so they progress together in whatever order the
  // peers listed theirs. At most kMaxP2pGroupOps with other ranks
  // (InvalidUsage beyond).
  Status RunGroup(std::span<const StreamSend> sends, std::span<const StreamRecv> recvs, void* stream);

  // A device-to-device copy that runs beside what is enqueued on `stream`
  // after it, until JoinCopies(stream): a stream of this object's waits for
  // `stream` (an event), copies, and JoinCopies makes `stream` wait for it
  // (for the point-to-point collectives' block to self).
  Status CopyBeside(void* dst, const void* src, uint64_t bytes, void* stream);
  Status JoinCopies(void* stream);

 private:
  // A receive's status, pending until its stream gets past it.
  struct ResultSlot {
    StreamP2p* owner = nullptr;
    DevP2pResult* result = nullptr;  // host-mapped
    std::atomic<bool> busy{false};
    grStatus_t* status = nullptr;
    int source = 0;
    size_t type_size = 1;
  };
  StreamP2p(CommLink& link, int device, const StreamP2pOptions& options)
      : link_(link), device_(device), opt_(options) {}
  Status Init();
  Status CheckErrors();
  StatusOr<P2pConnection*> ConnectionTo(int peer);
  template <typename L>
  Status Launch(std::span<const StreamSend> sends, std::span<const StreamRecv> recvs, bool group, void* stream, L* l);
  static Status CheckSelf(const StreamSend& send, const StreamRecv& recv);
  Status RunSelf(const StreamSend& send, const StreamRecv& recv, void* stream);
  Status OrderAfterPrevious(void* stream);
  Status MarkLast(void* stream);
  StatusOr<ResultSlot*> TakeResultSlot();
  Status EnqueueStatus(ResultSlot* slot, void* stream);
  static void FillStatus(void* slot);  // a CUDA host function
  void WaitIdle();
  void SayGoodbye();

  CommLink& link_;
  int device_;
  StreamP2pOptions opt_;
  std::mutex mu_;
  // The proxy of NET connections (peers on other hosts), made with the first
  // one; declared before connections_ so that it outlives them.
  std::unique_ptr<GpuNetProxy> net_;
  std::map<int, std::unique_ptr<P2pConnection>> connections_;
  DevError* error_ = nullptr;          // host-mapped: failed waits
  DevError* message_error_ = nullptr;  // host-mapped: truncated / mismatched messages
  uint32_t* abort_ = nullptr;          // host-mapped
  DevP2pResult* results_ = nullptr;    // host-mapped, kResultSlots
  std::unique_ptr<ResultSlot[]> slots_;
  size_t next_slot_ = 0;
  void* last_event_ = nullptr;   // cudaEvent_t after the last call
  void* side_stream_ = nullptr;  // CopyBeside's cudaStream_t (non-blocking), made on first use
  void* fork_event_ = nullptr;
  void* join_event_ = nullptr;
  bool copies_pending_ = false;
  void* last_stream_ = nullptr;
  bool any_call_ = false;
  std::string broken_;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_STREAM_P2P_H_
