// The fixed-layout objects of stream-ordered point-to-point on GPUs (NCCL's
// ncclSend/ncclRecv shape): per pair of ranks and direction, a connection of
// `nchannels` Simple FIFOs (coll/wire_format.h geometry) that live in the
// receiver's GPU memory and are mapped into the sender through CUDA IPC once,
// when the pair first uses a stream (coll/gpu/p2p_connection.h). A send
// kernel copies the user's buffer into the FIFOs, the receive kernel copies
// it out: no buffer of the program is ever exported, and nothing is opened or
// closed while a kernel may hold a stream.
//
// A message crosses every channel of its connection: channel c carries bytes
// [c * part, min(size, (c + 1) * part)) of it (P2pChannelPart), in steps of
// StepBytes(buffer_bytes). Its first step on each channel also carries a
// header, written into the header slot of that step (the header ring has
// kFifoSteps entries, slot = step % kFifoSteps, so the FIFO's own flow
// control protects it): the message's size and tag. The receiver learns the
// size from it, so a receive may post more room than the message needs (MPI),
// and it checks the tag.
#ifndef GPURUN_COLL_DEVICE_P2P_LAUNCH_H_
#define GPURUN_COLL_DEVICE_P2P_LAUNCH_H_

#include <cstdint>
#include <type_traits>

#include "coll/device/dev_launch.h"
#include "coll/int_math.h"
#include "coll/wire_format.h"

namespace gpurun::coll {

// Most channels of one point-to-point connection.
inline constexpr int kMaxP2pChannels = 64;

// A message's header on one channel.
struct DevP2pHeader {
  uint64_t bytes;  // the whole message's size
  int32_t tag;
  uint32_t pad;
};

// The sending end of one channel of a connection (device memory; `step`
// persists between launches).
struct DevP2pSendChan {
  uint8_t* fifo;          // remote: the receiver's FIFO
  uint64_t* tail;         // remote: steps published
  DevP2pHeader* headers;  // remote: kFifoSteps header slots
  const uint64_t* head;   // local: steps the receiver released
  uint64_t step;          // steps sent so far
  // A NET connection's step sizes (null otherwise): written before tail,
  // for the proxy that sends each step (coll/host/gpu_net_proxy.h); the
  // FIFO, tail and headers are then this rank's own host memory.
  uint32_t* net_sizes;
};

// The receiving end.
struct DevP2pRecvChan {
  const uint8_t* fifo;          // local
  const uint64_t* tail;         // local: written by the sender
  const DevP2pHeader* headers;  // local: written by the sender
  uint64_t* head;               // remote: the sender's released count
  uint64_t step;                // steps received so far
};

// What a receive found, for its status (host-mapped; written by the block of
// channel 0 once its part is copied out; the host sets `error` to
// kDevResultUnfilled before the launch, so a receive whose wait failed
// keeps that).
struct DevP2pResult {
  uint64_t bytes;  // the message's size (what was written: at most the room)
  int32_t tag;     // the sender's tag
  uint32_t error;  // DevErrorCode of this receive (0: none)
};

// Error codes of point-to-point launches beyond dev_launch.h's; DevError's
// `step` and `value` then hold (the message's size, the receive's room) or
// (the receive's tag, the message's tag).
inline constexpr uint32_t kDevErrorTruncated = 3;
inline constexpr uint32_t kDevErrorTagMismatch = 4;

inline constexpr uint32_t kDevResultUnfilled = 0xFFFFFFFFu;

// Tag meaning "any tag" in DevP2pLaunch::recv_tag (GR_ANY_TAG).
inline constexpr int32_t kDevAnyTag = -1;

// Operations one launch holds at most: a call's send and receive (two), or a
// group's point-to-point calls of one communicator and stream
// (grGroupStart / grGroupEnd), which then progress together.
inline constexpr int kMaxP2pCallOps = 2;
inline constexpr int kMaxP2pGroupOps = 64;
// Blocks a group's launch aims at: each operation gets its share (at least
// one; a block runs channels j, j + blocks, ... of its operation in
// ascending order, on both ends, so no two blocks wait on each other in a
// cycle), few enough that every block is resident at once.
inline constexpr int kP2pGroupBlocks = 128;

// One send to or receive from one peer.
struct DevP2pOp {
  void* buf;             // send: the message (const); receive: where it goes
  uint64_t bytes;        // send: the message's size; receive: the room
  void* chans;           // device memory, `channels` DevP2pSendChan or DevP2pRecvChan
  DevP2pResult* result;  // receive: host-mapped or null
  int32_t tag;           // receive: kDevAnyTag for any
  int32_t channels;      // the connection's channels
  int32_t peer;          // communicator rank, for error records
  int32_t sending;       // 1: a send, 0: a receive
  int32_t first_block;   // the operation's blocks: [first_block, first_block + blocks)
  int32_t blocks;
};

// One launch of N operations at most; blocks [ops[k].first_block, + blocks)
// run operation k.
template <int N>
struct DevP2pLaunchN {
  DevError* error;          // host-mapped: a wait that failed
  DevError* message_error;  // host-mapped: a truncated or mismatched message
  const uint32_t* abort;    // host-mapped: nonzero ends every wait
  uint64_t timeout_ns;      // 0: none
  uint64_t buffer_bytes;    // FIFO bytes per channel
  int32_t nops;
  int32_t nblocks;
  DevP2pOp ops[N];
};
using DevP2pLaunch = DevP2pLaunchN<kMaxP2pCallOps>;
using DevP2pGroupLaunch = DevP2pLaunchN<kMaxP2pGroupOps>;

static_assert(std::is_trivially_copyable_v<DevP2pHeader> && sizeof(DevP2pHeader) == 16);
static_assert(std::is_trivially_copyable_v<DevP2pSendChan>);
static_assert(std::is_trivially_copyable_v<DevP2pRecvChan>);
static_assert(std::is_trivially_copyable_v<DevP2pLaunch>);
static_assert(std::is_trivially_copyable_v<DevP2pGroupLaunch>);
static_assert(sizeof(DevP2pGroupLaunch) <= 32764, "a kernel parameter block is at most 32764 bytes");

// The part of a `bytes`-byte message channel `c` of `nchannels` carries:
// equal 16-byte-aligned parts in channel order (later channels may get less
// or nothing).
struct P2pPart {
  uint64_t offset;
  uint64_t bytes;
};
GR_HOST_DEVICE constexpr P2pPart P2pChannelPart(uint64_t bytes, int nchannels, int c) {
  const uint64_t part = AlignUp(DivUp(bytes, static_cast<uint64_t>(nchannels)), 16);
  const uint64_t offset = Min(bytes, part * static_cast<uint64_t>(c));
  return P2pPart{offset, Min(part, bytes - offset)};
}

// Steps a channel's part takes: at least one (the header's), even when empty.
GR_HOST_DEVICE constexpr uint64_t P2pPartSteps(uint64_t part_bytes, uint64_t buffer_bytes) {
  return Max<uint64_t>(1, DivUp(part_bytes, StepBytes(buffer_bytes)));
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_DEVICE_P2P_LAUNCH_H_
