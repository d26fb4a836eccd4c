// The fixed-layout objects that cross from the host to a device collective
// kernel (STYLE.md rule 3 and 5): per channel the ring connectors of this rank
// (DevChannel, in device memory, also holding the channel's FIFO step
// counters between launches), the error record a kernel fills when a wait
// times out or is aborted (DevError, in host-mapped memory), and the launch
// itself (DevLaunch, passed by value: the planner's WorkDesc per work, each
// with its call's buffers, and which works each block runs).
//
// Memory of one connection (Simple protocol, coll/wire_format.h): the FIFO
// and its tail counter live in the receiver's GPU memory, the head counter in
// the sender's; the peer maps them through CUDA IPC (p2p/cuda_ipc). Counters
// count steps: the sender publishes step s by storing tail = s + n after the
// data; the receiver releases it by storing head = s + n after reading.
// Each channel also has an LL FIFO (ll_buffer_bytes) and, where LL128 is
// safe, an LL128 FIFO (ll128_buffer_bytes) next to the Simple one,
// with the same step counters (NCCL shares conn->step between protocols):
// an LL step carries its flag in every line instead of a tail, and releases
// its slot through the same head, so slot s % kFifoSteps of either FIFO is
// free once head > s - kFifoSteps whichever protocol used the steps between.
// A NET connection (to or from a rank on another host) differs: each side
// has its own FIFOs and counters in host memory the GPU maps, and a proxy
// moves the steps (DevSendConn::net_sizes, coll/host/gpu_net_proxy.h).
#ifndef GPURUN_COLL_DEVICE_DEV_LAUNCH_H_
#define GPURUN_COLL_DEVICE_DEV_LAUNCH_H_

#include <cstdint>
#include <type_traits>

#include "coll/planner/work.h"

namespace gpurun::coll {

// Most blocks (channels) one device collective launches.
inline constexpr int kMaxDeviceChannels = 128;
// Most works one launch holds: one call's, or those of several calls of a
// group fused into one launch (coll/gpu/launch_batch.h).
inline constexpr int kMaxDeviceWorks = 128;

// The receiving end of a connection on this rank.
struct DevRecvConn {
  const uint8_t* fifo;        // local: kFifoSteps slots written by the sender
  const uint8_t* ll_fifo;     // local: the LL FIFO
  const uint8_t* ll128_fifo;  // local: the LL128 FIFO (null when the ring has none)
  const uint64_t* tail;       // local: the sender's published step count
  uint64_t* head;             // remote (the sender's memory): our released step count
};

// The sending end.
struct DevSendConn {
  uint8_t* fifo;         // remote: the receiver's FIFO
  uint8_t* ll_fifo;      // remote: the receiver's LL FIFO
  uint8_t* ll128_fifo;   // remote: the receiver's LL128 FIFO (null when the ring has none)
  uint64_t* tail;        // remote: the receiver's tail counter
  const uint64_t* head;  // local: the receiver's released step count
  // A NET connection's step sizes (null otherwise): kFifoSteps words in
  // local host memory, slot s % kFifoSteps written before tail = s + 1 with
  // the step's wire bytes (kNetStepLL set for LL). On NET, fifo, ll_fifo,
  // tail and head are all local host memory that the proxy moves
  // (coll/host/gpu_net_proxy.h), and an LL step also posts tail.
  uint32_t* net_sizes;
};

// One channel of one rank: its ring connectors and step counters.
struct DevChannel {
  DevRecvConn recv;
  DevSendConn send;
  uint64_t recv_step;  // steps received so far (kept between launches)
  uint64_t send_step;  // steps sent so far
};

// One (channel, tree) of one rank of the GPU double binary tree
// (tree_connectors.h): its connections with its parent (index 0) and its
// children (1, 2), and the step counters of the two phases of a tree
// allreduce, kept between launches like DevChannel's. All children of a rank
// move in step (every call of the up phase receives from each of them), so
// one counter serves them all.
struct DevTreeLinks {
  DevRecvConn recv[3];      // from the parent, child 0, child 1 (zeroed where none)
  DevSendConn send[3];      // to the parent, child 0, child 1
  int32_t peer[3];          // their communicator ranks; -1: none
  int32_t nchildren;        // 0..2
  uint64_t up_recv_step;    // steps received from the children so far
  uint64_t up_send_step;    // steps sent to the parent
  uint64_t down_recv_step;  // steps received from the parent
  uint64_t down_send_step;  // steps sent to the children
};

enum class DevErrorCode : uint32_t { kNone = 0, kTimeout = 1, kAborted = 2 };

// DevError.channel of a wait of a direct algorithm (one-shot, two-shot):
// `peer` names the rank waited for, `step` the flag waited for.
inline constexpr uint32_t kDirectWaitChannel = 0xffffffffu;
// DevError.sending of a direct algorithm's wait: what it waited for.
inline constexpr uint32_t kOneShotWaitInput = 0;    // a peer's input (one-shot)
inline constexpr uint32_t kTwoShotWaitInput = 1;    // a peer's input for this rank's part (two-shot)
inline constexpr uint32_t kTwoShotWaitReduced = 2;  // a peer's reduced part (two-shot)
// Set in DevError.channel by a wait of the tree algorithm: `peer` then names
// the rank waited for (ring waits name none: `sending` says which neighbour).
inline constexpr uint32_t kTreeWaitFlag = 0x80000000u;

// The first wait that failed in a launch (first writer wins through `code`).
struct DevError {
  uint32_t code;     // DevErrorCode
  uint32_t channel;  // channel whose wait failed; kDirectWaitChannel: a direct algorithm's
  uint32_t sending;  // 1: waited for the receiver (next rank), 0: for the sender (previous rank)
  uint32_t peer;     // point-to-point: the communicator rank waited for (rings: 0, known from `sending`)
  uint64_t step;     // the step it waited for
  uint64_t value;    // the counter's value when it gave up
};

// The buffers of the call a work belongs to (device memory).
struct DevBuffers {
  const void* send;
  void* recv;
};

// Block b runs works block_first[b] .. block_first[b + 1] - 1 in order: the
// works of one lane (a ring channel, or one (channel, tree)) of every call
// of the launch, in call order, so each connection's steps follow the same
// order on every rank.
struct DevLaunch {
  DevChannel* channels;         // device memory, kMaxDeviceChannels entries
  const int32_t* ring_ranks;    // device memory: the rank at each ring position (blocks are laid out by rank)
  DevTreeLinks* trees;          // device memory, [channel * 2 + tree]; null before the tree's first call
  DevError* error;              // host-mapped
  const uint32_t* abort;        // host-mapped: nonzero ends every wait
  uint64_t timeout_ns;          // 0: no timeout
  uint64_t buffer_bytes;        // Simple FIFO bytes per connection
  uint64_t ll_buffer_bytes;     // LL FIFO bytes per connection
  uint64_t ll128_buffer_bytes;  // LL128 FIFO bytes per connection (0: none)
  uint32_t divisor;             // avg: the rank count
  int32_t nblocks;
  uint16_t block_first[kMaxDeviceChannels + 1];
  DevBuffers buffers[kMaxDeviceWorks];  // work[i]'s call's buffers
  WorkDesc work[kMaxDeviceWorks];
};

static_assert(std::is_trivially_copyable_v<DevChannel>);
static_assert(std::is_trivially_copyable_v<DevError>);
static_assert(std::is_trivially_copyable_v<DevTreeLinks>);
static_assert(std::is_trivially_copyable_v<DevLaunch>);
static_assert(kMaxDeviceWorks < (1 << 16), "block_first holds work indices");
// Kernel parameters may take 32764 bytes since CUDA 12.1 on Volta and later.
static_assert(sizeof(DevLaunch) <= 32764, "a kernel parameter block is at most 32764 bytes");

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_DEVICE_DEV_LAUNCH_H_
