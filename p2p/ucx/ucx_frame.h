// What the UCX wire puts inside a tagged message besides user bytes.
//
// The 64-bit tag carries only the communicator rank of the sender
// (ucx_tag.h), and UCX's tag probe does not say which endpoint a message came
// from, so the sender's WORLD rank travels in the payload:
//
//  - small message (eager, <= the eager limit): one tagged message =
//      8-byte prefix (magic "GR", version, kind = eager, world source) + payload;
//  - large message: two tagged messages with the same tag, back to back on
//    the same endpoint: an announce frame (prefix with kind = announce, world
//    source, then the payload size as 8 bytes) and then the payload itself,
//    bare, so that the receiver can move it straight into the user buffer;
//  - flagged message (the engine's sync notes and DeviceFins, MatchHeader::flags
//    != 0, small): one tagged message = prefix (kind = flagged, world source),
//    the flags as 4 bytes, 4 zero bytes, then the payload. The tag has no room
//    for the flags, the frame does.
//
// UCX keeps tagged messages of one endpoint in order and a tag names one
// sending process, so the next message with an announced tag is the announced
// payload. Fields are little-endian whatever the host order. Pure: no UCX.
#ifndef GPURUN_P2P_UCX_UCX_FRAME_H_
#define GPURUN_P2P_UCX_UCX_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace gpurun::p2p {

inline constexpr size_t kFramePrefixBytes = 8;
inline constexpr size_t kAnnounceFrameBytes = kFramePrefixBytes + 8;
inline constexpr size_t kFlaggedFrameBytes = kFramePrefixBytes + 8;  // the frame before a flagged payload
inline constexpr uint8_t kFrameMagic0 = 'G';
inline constexpr uint8_t kFrameMagic1 = 'R';
inline constexpr uint8_t kFrameVersion = 1;

enum class FrameKind : uint8_t { kEager = 1, kAnnounce = 2, kFlagged = 3 };

struct FrameInfo {
  FrameKind kind = FrameKind::kEager;
  int32_t world_source = 0;
  uint64_t bulk_bytes = 0;  // announce only: size of the payload that follows
  uint32_t flags = 0;       // flagged only: MatchHeader::flags (never 0)
};

namespace frame_internal {

inline void PutLe(std::byte* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

inline uint64_t GetLe(const std::byte* in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<uint64_t>(in[i]) << (8 * i);
  return value;
}

inline void PutPrefix(std::byte* out, FrameKind kind, int32_t world_source) {
  out[0] = static_cast<std::byte>(kFrameMagic0);
  out[1] = static_cast<std::byte>(kFrameMagic1);
  out[2] = static_cast<std::byte>(kFrameVersion);
  out[3] = static_cast<std::byte>(kind);
  PutLe(out + 4, static_cast<uint32_t>(world_source), 4);
}

}  // namespace frame_internal

// Writes the kFramePrefixBytes prefix of an eager frame at `out`.
inline void WriteEagerPrefix(std::byte* out, int32_t world_source) {
  frame_internal::PutPrefix(out, FrameKind::kEager, world_source);
}

// Writes a whole announce frame (kAnnounceFrameBytes) at `out`.
inline void WriteAnnounce(std::byte* out, int32_t world_source, uint64_t bulk_bytes) {
  frame_internal::PutPrefix(out, FrameKind::kAnnounce, world_source);
  frame_internal::PutLe(out + kFramePrefixBytes, bulk_bytes, 8);
}

// Writes the kFlaggedFrameBytes frame of a flagged message at `out` (the payload follows it).
inline void WriteFlaggedPrefix(std::byte* out, int32_t world_source, uint32_t flags) {
  frame_internal::PutPrefix(out, FrameKind::kFlagged, world_source);
  frame_internal::PutLe(out + kFramePrefixBytes, flags, 4);
  frame_internal::PutLe(out + kFramePrefixBytes + 4, 0, 4);
}

// Decodes a received frame; nullopt when it is not one (wrong magic, version,
// kind or length, negative rank, a flagged frame with no flags).
inline std::optional<FrameInfo> ReadFrame(std::span<const std::byte> frame) {
  if (frame.size() < kFramePrefixBytes) return std::nullopt;
  const std::byte* p = frame.data();
  if (p[0] != static_cast<std::byte>(kFrameMagic0) || p[1] != static_cast<std::byte>(kFrameMagic1) ||
      p[2] != static_cast<std::byte>(kFrameVersion)) {
    return std::nullopt;
  }
  FrameInfo info;
  info.world_source = static_cast<int32_t>(static_cast<uint32_t>(frame_internal::GetLe(p + 4, 4)));
  if (info.world_source < 0) return std::nullopt;
  const auto kind = static_cast<uint8_t>(p[3]);
  if (kind == static_cast<uint8_t>(FrameKind::kEager)) {
    info.kind = FrameKind::kEager;
    return info;
  }
  if (kind == static_cast<uint8_t>(FrameKind::kFlagged)) {
    if (frame.size() < kFlaggedFrameBytes) return std::nullopt;
    info.kind = FrameKind::kFlagged;
    info.flags = static_cast<uint32_t>(frame_internal::GetLe(p + kFramePrefixBytes, 4));
    if (info.flags == 0) return std::nullopt;
    return info;
  }
  if (kind != static_cast<uint8_t>(FrameKind::kAnnounce) || frame.size() != kAnnounceFrameBytes) return std::nullopt;
  info.kind = FrameKind::kAnnounce;
  info.bulk_bytes = frame_internal::GetLe(p + kFramePrefixBytes, 8);
  return info;
}

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_FRAME_H_
