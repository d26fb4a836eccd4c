// The envelope every point-to-point message carries, on every wire: which
// communicator context it belongs to, the sender's rank in that communicator,
// the user tag, and the payload size. The matching engine matches on
// (context, source, tag); wires deliver one sender's messages in the order it
// sent them, which gives MPI's non-overtaking rule.
#ifndef GPURUN_P2P_MATCH_HEADER_H_
#define GPURUN_P2P_MATCH_HEADER_H_

#include <cstdint>

namespace gpurun::p2p {

// Largest user tag (MPI_TAG_UB): tags travel in 28 bits on the UCX wire.
inline constexpr int32_t kMaxTag = (1 << 28) - 1;
// Largest communicator context id: 16 bits on the UCX wire.
inline constexpr uint32_t kMaxContext = (1u << 16) - 1;
// Largest communicator size: ranks travel in 20 bits on the UCX wire.
inline constexpr int32_t kMaxRanks = 1 << 20;

// MatchHeader::flags: what the payload is, when it is not the message itself.
// Only the engine sets them; every wire carries them untouched (ucx: in the
// frame, ucx_frame.h, as its tag layout has no room for them).
inline constexpr uint32_t kFlagDeviceRts = 1u << 0;  // a DeviceRts (device_transfer.h): the data is GPU memory
inline constexpr uint32_t kFlagDeviceFin = 1u << 1;  // a DeviceFin: the receiver has pulled a DeviceRts's data
// A sync note (a uint64_t send id): the sender's next message is a synchronous
// send (grIssend); its receiver answers with a DeviceFin of that id once a
// receive has matched it.
inline constexpr uint32_t kFlagSyncNote = 1u << 2;

struct MatchHeader {
  uint32_t context = 0;  // communicator matching context, <= kMaxContext
  int32_t source = 0;    // sender's rank in that communicator
  int32_t tag = 0;       // 0..kMaxTag
  uint32_t flags = 0;    // kFlag*; 0 for an ordinary message
  uint64_t bytes = 0;    // payload size
};
static_assert(sizeof(MatchHeader) == 24);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_MATCH_HEADER_H_
