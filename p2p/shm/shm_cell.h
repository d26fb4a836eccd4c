// The cell: the unit that travels through a shared-memory ring. Every cell is
// a 32-byte CellHeader followed by `length` payload bytes, padded to a whole
// number of 64-byte cache lines, so a message of up to 32 bytes travels in a
// single cache line together with its envelope. The header's `ready` byte is
// what the receiver polls (shm_ring.h): it sits in the line the message
// arrives in, so a small message costs the receiver one cache-line transfer.
//
//   kind    what follows                    body words
//   kEager  the message payload             MatchHeader
//   kRts    RtsPayload (sender buffer)      MatchHeader
//   kCts    nothing                         {send id, bytes wanted}
//   kFin    nothing                         {send id, result code}
//   kFrag   a slice of a rendezvous payload {send id, offset}; kLastFragment
//   kHelp   ShareOffer (shm_share.h)        -
//   kSkip   padding to the end of the ring  -
//
// RTS/CTS/FIN/FRAG/HELP implement the rendezvous (shm_rendezvous.h): the
// receiver either reads the sender's buffer with process_vm_readv (for a large
// payload offering the sender a share of the copy, HELP) and answers FIN, or
// answers CTS and the sender streams FRAG cells through the ring.
#ifndef GPURUN_P2P_SHM_SHM_CELL_H_
#define GPURUN_P2P_SHM_SHM_CELL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "p2p/match_header.h"

namespace gpurun::p2p::shm {

inline constexpr size_t kCacheLine = 64;

enum class CellKind : uint8_t { kSkip = 1, kEager, kRts, kCts, kFin, kFrag, kHelp };

// Flags on a kFrag cell.
inline constexpr uint16_t kLastFragment = 1;

// Two words of rendezvous bookkeeping carried in place of a MatchHeader.
struct ControlWords {
  uint64_t send_id = 0;  // the sender's id for the rendezvous
  uint64_t value = 0;    // CTS: bytes wanted; FIN: grResult_t; FRAG: offset
};

// Payload of a kRts cell.
struct RtsPayload {
  uint64_t send_id = 0;
  uint64_t address = 0;  // the sender's buffer, in the sender's address space
};

struct alignas(32) CellHeader {
  CellKind kind;
  uint8_t ready;  // set last by the producer, cleared by the consumer (shm_ring.h); never touched by callers
  uint16_t flags;
  uint32_t length;  // payload bytes after the header
  alignas(8) std::byte body[24];

  void SetMatch(const MatchHeader& m) { std::memcpy(body, &m, sizeof(m)); }
  MatchHeader match() const {
    MatchHeader m;
    std::memcpy(&m, body, sizeof(m));
    return m;
  }
  void SetControl(const ControlWords& c) { std::memcpy(body, &c, sizeof(c)); }
  ControlWords control() const {
    ControlWords c;
    std::memcpy(&c, body, sizeof(c));
    return c;
  }
  std::byte* payload() { return reinterpret_cast<std::byte*>(this + 1); }
  const std::byte* payload() const { return reinterpret_cast<const std::byte*>(this + 1); }
};

static_assert(sizeof(CellHeader) == 32);
static_assert(std::is_trivially_copyable_v<CellHeader>);
static_assert(sizeof(MatchHeader) <= sizeof(CellHeader::body) && std::is_trivially_copyable_v<MatchHeader>);
static_assert(sizeof(ControlWords) <= sizeof(CellHeader::body));

// Ring bytes a cell with `length` payload bytes occupies.
constexpr uint64_t CellBytes(uint64_t length) {
  return (sizeof(CellHeader) + length + kCacheLine - 1) / kCacheLine * kCacheLine;
}

// Largest payload a cell may carry in a ring of `ring_capacity` bytes: a
// quarter of the ring, so a full ring still holds several cells and a cell
// always fits once the ring drains (any cell up to half the ring does).
constexpr uint64_t MaxCellPayload(uint64_t ring_capacity) { return ring_capacity / 4 - sizeof(CellHeader); }

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_CELL_H_
