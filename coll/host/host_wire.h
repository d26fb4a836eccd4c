// Packing of one step's data into LL / LL128 lines of a FIFO slot and back,
// on the host (wire_format.h has the line formats). A step may fill only
// part of its slot; the last line of a step may be partly filled (zero
// padded). Pack honours LL's clean rule: at a step where LLNeedsClean holds,
// every further line of the slot is rewritten with the current flag.
#ifndef GPURUN_COLL_HOST_HOST_WIRE_H_
#define GPURUN_COLL_HOST_HOST_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "coll/wire_format.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

template <typename P>
struct HostWire;

template <>
struct HostWire<ProtoLL> {
  static constexpr uint64_t kLineData = 8;

  static void Pack(std::byte* slot, uint64_t slot_bytes, const std::byte* data, uint64_t bytes, uint64_t step) {
    auto* lines = reinterpret_cast<LLLine*>(slot);
    const uint32_t flag = LLFlag(step);
    const uint64_t full = bytes / kLineData;
    for (uint64_t i = 0; i < full; ++i) {
      uint64_t v;
      std::memcpy(&v, data + i * kLineData, kLineData);
      lines[i].write(v, flag);
    }
    uint64_t used = full;
    if (const uint64_t rest = bytes % kLineData; rest != 0) {
      uint64_t v = 0;
      std::memcpy(&v, data + full * kLineData, rest);
      lines[used++].write(v, flag);
    }
    if (LLNeedsClean(step)) {
      for (uint64_t i = used; i < slot_bytes / sizeof(LLLine); ++i) lines[i].write(0, flag);
    }
  }

  // Reads `bytes` of step `step`; wait(ready) waits until ready() holds.
  template <typename Wait>
  static Status Unpack(const std::byte* slot, std::byte* data, uint64_t bytes, uint64_t step, Wait&& wait) {
    const auto* lines = reinterpret_cast<const LLLine*>(slot);
    const uint32_t flag = LLFlag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    for (uint64_t i = 0; i < nlines; ++i) {
      uint64_t v;
      if (!lines[i].read(flag, &v)) GR_RETURN_IF_ERROR(wait([&] { return lines[i].read(flag, &v); }));
      const uint64_t n = Min(kLineData, bytes - i * kLineData);
      std::memcpy(data + i * kLineData, &v, n);
    }
    return OkStatus();
  }
};

template <>
struct HostWire<ProtoLL128> {
  static constexpr uint64_t kLineData = kLL128DataWords * 8;

  static void Pack(std::byte* slot, uint64_t /*slot_bytes*/, const std::byte* data, uint64_t bytes, uint64_t step) {
    auto* lines = reinterpret_cast<LL128Line*>(slot);
    const uint64_t flag = LL128Flag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    uint64_t words[kLL128DataWords];
    for (uint64_t i = 0; i < nlines; ++i) {
      const uint64_t n = Min(kLineData, bytes - i * kLineData);
      if (n < kLineData) std::memset(words, 0, sizeof(words));
      std::memcpy(words, data + i * kLineData, n);
      lines[i].write(words, flag);
    }
  }

  template <typename Wait>
  static Status Unpack(const std::byte* slot, std::byte* data, uint64_t bytes, uint64_t step, Wait&& wait) {
    const auto* lines = reinterpret_cast<const LL128Line*>(slot);
    const uint64_t flag = LL128Flag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    uint64_t words[kLL128DataWords];
    for (uint64_t i = 0; i < nlines; ++i) {
      if (!lines[i].read(flag, words)) GR_RETURN_IF_ERROR(wait([&] { return lines[i].read(flag, words); }));
      std::memcpy(data + i * kLineData, words, Min(kLineData, bytes - i * kLineData));
    }
    return OkStatus();
  }
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_HOST_WIRE_H_
