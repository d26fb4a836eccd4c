// The 64-bit UCX tag of a point-to-point message: the MatchHeader's matching
// triple packed as
//
//   bits 63..48  context   (16 bits, 0..kMaxContext)
//   bits 47..28  source    (20 bits, the sender's rank in the communicator, 0..kMaxRanks-1)
//   bits 27..0   user tag  (28 bits, 0..kMaxTag)
//
// Every bit is used, so a (context, source) pair names exactly one sending
// process for the lifetime of the communicator; the UCX wire relies on that
// to pair a large message with the frame that announced it (ucx_frame.h).
// Pure and constexpr: no UCX headers, usable anywhere.
#ifndef GPURUN_P2P_UCX_UCX_TAG_H_
#define GPURUN_P2P_UCX_UCX_TAG_H_

#include <cstdint>

#include "p2p/match_header.h"

namespace gpurun::p2p {

inline constexpr int kTagContextShift = 48;
inline constexpr int kTagSourceShift = 28;
inline constexpr uint64_t kTagContextMask = 0xFFFFull;  // 16 bits
inline constexpr uint64_t kTagSourceMask = 0xFFFFFull;  // 20 bits
inline constexpr uint64_t kTagUserMask = 0xFFFFFFFull;  // 28 bits

static_assert(kTagContextMask == kMaxContext);
static_assert(kTagSourceMask + 1 == static_cast<uint64_t>(kMaxRanks));
static_assert(kTagUserMask == static_cast<uint64_t>(kMaxTag));
static_assert(16 + 20 + 28 == 64);

// The matching triple a tag carries.
struct TagFields {
  uint32_t context = 0;
  int32_t source = 0;
  int32_t tag = 0;

  friend constexpr bool operator==(const TagFields&, const TagFields&) = default;
};

// Whether `header` fits the tag layout (context <= kMaxContext,
// 0 <= source < kMaxRanks, 0 <= tag <= kMaxTag). The flags are not part of
// the tag: they travel in the frame (ucx_frame.h).
constexpr bool FitsTag(const MatchHeader& header) {
  return header.context <= kMaxContext && header.source >= 0 && header.source < kMaxRanks && header.tag >= 0 &&
         header.tag <= kMaxTag;
}

// Packs the triple; fields must satisfy FitsTag (extra bits are masked off).
constexpr uint64_t PackTag(uint32_t context, int32_t source, int32_t tag) {
  return ((static_cast<uint64_t>(context) & kTagContextMask) << kTagContextShift) |
         ((static_cast<uint64_t>(static_cast<uint32_t>(source)) & kTagSourceMask) << kTagSourceShift) |
         (static_cast<uint64_t>(static_cast<uint32_t>(tag)) & kTagUserMask);
}

constexpr uint64_t PackTag(const MatchHeader& header) { return PackTag(header.context, header.source, header.tag); }

constexpr TagFields UnpackTag(uint64_t bits) {
  TagFields fields;
  fields.context = static_cast<uint32_t>((bits >> kTagContextShift) & kTagContextMask);
  fields.source = static_cast<int32_t>((bits >> kTagSourceShift) & kTagSourceMask);
  fields.tag = static_cast<int32_t>(bits & kTagUserMask);
  return fields;
}

// The MatchHeader of a received message: the tag's triple and its payload size.
constexpr MatchHeader HeaderFromTag(uint64_t bits, uint64_t bytes) {
  const TagFields fields = UnpackTag(bits);
  MatchHeader header;
  header.context = fields.context;
  header.source = fields.source;
  header.tag = fields.tag;
  header.bytes = bytes;
  return header;
}

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_TAG_H_
