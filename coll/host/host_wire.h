// Packing of one step's data into LL / LL128 lines of a FIFO and back, on
// the host (wire_format.h has the line formats). LL also packs a NET FIFO's
// slot (PackSlot / UnpackSlot: one step's lines contiguous). Pack and Unpack take the
// whole FIFO (kFifoSteps slots, `fifo_bytes`) and the step. A step may fill
// only part of its slot; the last line of a step may be partly filled (zero
// padded). Pack honours LL's clean rule: at a step where LLNeedsClean holds,
// every further line of the slot is rewritten with the current flag.
//
// LL keeps the first kLLSharedLines lines of every step interleaved with the
// other steps' at the start of the FIFO, a cache line (kLLUnitLines = 4
// lines) at a time, and the rest of each step's lines in a contiguous slot
// after them: with L lines per step, U = kLLUnitLines and H = min(
// kLLSharedLines, L) rounded down to whole units, line j < H of step s is
// line ((j / U) * kFifoSteps + s % kFifoSteps) * U + j % U, line j >= H is
// line H * kFifoSteps + (s % kFifoSteps) * (L - H) + j - H (a step of fewer
// than U lines, in unit tests only, interleaves line by line; LL128 keeps one
// contiguous slot per step, SlotOffset). A message of up to 32 bytes is one
// cache line, up to 128 bytes four, the eight slots' first lines 512
// contiguous bytes, while the bulk of larger messages stays contiguous for
// the prefetcher. Before 2026-12-01 the interleave went line by line (U = 1:
// four consecutive 8-byte steps shared a cache line, but a 64-byte message
// took eight, each shared with three other steps). Best of 20 alternating
// runs of the two builds, 2 ranks, ring/LL forced, gpurun-bench -b 8 -e 128:
// 8-16 B alike (bcast 0.13-0.17, reduce 0.14-0.19 us either way), 64 B bcast
// 0.15 against 0.20, reduce 0.15 against 0.21, allreduce 0.48 against 0.65,
// 128 B bcast 0.18 against 0.31; two-line units were between the two,
// 128-byte units like cache lines or a little slower.
#ifndef GPURUN_COLL_HOST_HOST_WIRE_H_
#define GPURUN_COLL_HOST_HOST_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "coll/ll_start.h"
#include "coll/wire_format.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

template <typename P>
struct HostWire;

template <>
struct HostWire<ProtoLL> {
  static constexpr uint64_t kLineData = 8;

  // Lines of each step kept interleaved with the other steps' (16 x 8 data
  // bytes: messages up to 128 bytes).
  static constexpr uint64_t kLLSharedLines = 16;

  // Lines interleaved as one unit: a 64-byte cache line.
  static constexpr uint64_t kLLUnitLines = 4;
  static_assert((kLLUnitLines & (kLLUnitLines - 1)) == 0 && kLLSharedLines % kLLUnitLines == 0);

  // The index of line `j` of step `step` among the FIFO's lines, with
  // `step_lines` lines per step.
  static constexpr uint64_t LineIndex(uint64_t step, uint64_t j, uint64_t step_lines) {
    const uint64_t slot = step % kFifoSteps;
    const uint64_t shared = Min(kLLSharedLines, step_lines) & ~(kLLUnitLines - 1);
    if (shared == 0) [[unlikely]]  // a step smaller than a unit (unit tests): line by line
      return j * kFifoSteps + slot;
    return j < shared ? ((j / kLLUnitLines) * kFifoSteps + slot) * kLLUnitLines + j % kLLUnitLines
                      : shared * kFifoSteps + slot * (step_lines - shared) + j - shared;
  }

  static void Pack(std::byte* fifo, uint64_t fifo_bytes, const std::byte* data, uint64_t bytes, uint64_t step) {
    auto* lines = reinterpret_cast<LLLine*>(fifo);
    const uint64_t step_lines = StepBytes(fifo_bytes) / sizeof(LLLine);
    const uint32_t flag = LLFlag(step);
    const uint64_t full = bytes / kLineData;
    for (uint64_t i = 0; i < full; ++i) {
      uint64_t v;
      std::memcpy(&v, data + i * kLineData, kLineData);
      lines[LineIndex(step, i, step_lines)].write(v, flag);
    }
    uint64_t used = full;
    if (const uint64_t rest = bytes % kLineData; rest != 0) {
      uint64_t v = 0;
      std::memcpy(&v, data + full * kLineData, rest);
      lines[LineIndex(step, used++, step_lines)].write(v, flag);
    }
    if (LLNeedsClean(step)) {
      for (uint64_t i = used; i < step_lines; ++i) lines[LineIndex(step, i, step_lines)].write(0, flag);
    }
  }

  // The FIFO as GPURUN_FIRST_STEP = `first_step` starts it (coll/ll_start.h):
  // every line of slot j holds StartLLFlag(first_step, j).
  static void StartAt(std::byte* fifo, uint64_t fifo_bytes, uint64_t first_step) {
    auto* lines = reinterpret_cast<LLLine*>(fifo);
    const uint64_t step_lines = StepBytes(fifo_bytes) / sizeof(LLLine);
    for (uint64_t slot = 0; slot < kFifoSteps; ++slot) {
      const uint32_t flag = StartLLFlag(first_step, static_cast<int>(slot));
      for (uint64_t i = 0; i < step_lines; ++i) lines[LineIndex(slot, i, step_lines)].write(0, flag);
    }
  }

  // Reads `bytes` of step `step`; wait(ready) waits until ready() holds.
  template <typename Wait>
  static Status Unpack(const std::byte* fifo, uint64_t fifo_bytes, std::byte* data, uint64_t bytes, uint64_t step,
                       Wait&& wait) {
    const auto* lines = reinterpret_cast<const LLLine*>(fifo);
    const uint64_t step_lines = StepBytes(fifo_bytes) / sizeof(LLLine);
    const uint32_t flag = LLFlag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    for (uint64_t i = 0; i < nlines; ++i) {
      const LLLine& line = lines[LineIndex(step, i, step_lines)];
      uint64_t v = 0;
      if (!line.read(flag, &v)) GR_RETURN_IF_ERROR(wait([&] { return line.read(flag, &v); }));
      const uint64_t n = Min(kLineData, bytes - i * kLineData);
      std::memcpy(data + i * kLineData, &v, n);
    }
    return OkStatus();
  }

  // NET FIFOs (net_proxy.h): the lines of one step contiguous from `slot`,
  // which is what one message carries. Returns the bytes of lines written.
  static uint64_t PackSlot(std::byte* slot, const std::byte* data, uint64_t bytes, uint64_t step) {
    auto* lines = reinterpret_cast<LLLine*>(slot);
    const uint32_t flag = LLFlag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    for (uint64_t i = 0; i < nlines; ++i) {
      uint64_t v = 0;
      std::memcpy(&v, data + i * kLineData, Min(kLineData, bytes - i * kLineData));
      lines[i].write(v, flag);
    }
    return nlines * sizeof(LLLine);
  }
  // Reads `bytes` from a step that arrived whole (`arrived` bytes of lines):
  // every line must carry the step's flag, else the step is corrupt
  // (InternalError; the caller names the peer).
  static Status UnpackSlot(const std::byte* slot, uint64_t arrived, std::byte* data, uint64_t bytes, uint64_t step) {
    const auto* lines = reinterpret_cast<const LLLine*>(slot);
    const uint32_t flag = LLFlag(step);
    const uint64_t nlines = DivUp(bytes, kLineData);
    if (arrived != nlines * sizeof(LLLine)) {
      return InternalError("LL step " + std::to_string(step) + " carried " + std::to_string(arrived) +
                           " bytes of lines, expected " + std::to_string(nlines * sizeof(LLLine)));
    }
    for (uint64_t i = 0; i < nlines; ++i) {
      uint64_t v = 0;
      if (!lines[i].read(flag, &v)) {
        return InternalError("LL step " + std::to_string(step) + " line " + std::to_string(i) +
                             " arrived without the step's flag");
      }
      std::memcpy(data + i * kLineData, &v, Min(kLineData, bytes - i * kLineData));
    }
    return OkStatus();
  }
};

template <>
struct HostWire<ProtoLL128> {
  static constexpr uint64_t kLineData = kLL128DataWords * 8;

  static void Pack(std::byte* fifo, uint64_t fifo_bytes, const std::byte* data, uint64_t bytes, uint64_t step) {
    auto* lines = reinterpret_cast<LL128Line*>(fifo + SlotOffset(step, fifo_bytes));
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
  static Status Unpack(const std::byte* fifo, uint64_t fifo_bytes, std::byte* data, uint64_t bytes, uint64_t step,
                       Wait&& wait) {
    const auto* lines = reinterpret_cast<const LL128Line*>(fifo + SlotOffset(step, fifo_bytes));
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
