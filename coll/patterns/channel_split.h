// How one collective's elements are split across channels (digest §5.4,
// NCCL scheduleCollTasksToPlan / ncclCollCbdPart): the buffer is cut into
// cells of `cell_bytes` (a multiple of 16 bytes), and channel c of C gets a
// contiguous run of ceil(cells / C) cells, so every channel's part starts on a
// 16-byte boundary; the last non-empty part holds the remainder and any later
// channel gets nothing. This is NCCL's lo/mid/hi scheme for a task that starts
// on an empty channel (countLo == countMid, countHi the rest).
//
// With cell_bytes = CellBytes(func, proto, nranks) a channel carries at least
// NCCL's MinTrafficPerChannel (32 KB of traffic), so small messages use fewer
// channels; with the default 16 every channel gets a share.
#ifndef GPURUN_COLL_PATTERNS_CHANNEL_SPLIT_H_
#define GPURUN_COLL_PATTERNS_CHANNEL_SPLIT_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/device_compat.h"
#include "coll/int_math.h"

namespace gpurun::coll {

// A run of elements [offset, offset + count).
struct Range {
  uint64_t offset = 0;
  uint64_t count = 0;
};

// Channel parts start on this boundary (user buffers are assumed aligned).
inline constexpr uint64_t kChannelAlignBytes = 16;
// NCCL's MinTrafficPerChannel (enqueue.cc; digest §5.4): a channel is worth
// using for at least this much traffic.
inline constexpr uint64_t kMinTrafficPerChannel = 32 * 1024;

// Bytes moved per byte of the task's count (NCCL ncclFuncTrafficPerByte).
GR_HOST_DEVICE constexpr uint64_t TrafficPerByte(Func func, int nranks) {
  switch (func) {
    case Func::kAllReduce: return 2;
    case Func::kAllGather:
    case Func::kReduceScatter: return static_cast<uint64_t>(nranks);
    default: return 1;
  }
}

// NCCL's cell size: the bytes of count that make MinTrafficPerChannel of
// traffic (LL moves 4x: half of each line is flags, and it runs at about half
// the bandwidth), rounded up to 16 bytes.
GR_HOST_DEVICE constexpr uint64_t CellBytes(Func func, Protocol proto, int nranks) {
  const uint64_t per_byte = TrafficPerByte(func, nranks) * (proto == Protocol::kLL ? 4 : 1);
  return AlignUp(DivUp(kMinTrafficPerChannel, per_byte), kChannelAlignBytes);
}

// Cells of `cell_bytes` in `count` elements of `elem_size` bytes.
// Preconditions: elem_size in {1, 2, 4, 8, 16}; cell_bytes a positive multiple of 16.
GR_HOST_DEVICE constexpr uint64_t CellCount(uint64_t count, int elem_size, uint64_t cell_bytes) {
  return DivUp(count, cell_bytes / static_cast<uint64_t>(elem_size));
}

// Part of channel `channel` (0 <= channel < nchannels) of `count` elements.
GR_HOST_DEVICE constexpr Range ChannelPart(uint64_t count, int elem_size, int nchannels, int channel,
                                           uint64_t cell_bytes = kChannelAlignBytes) {
  const uint64_t cell_elems = cell_bytes / static_cast<uint64_t>(elem_size);
  const uint64_t per_channel = DivUp(CellCount(count, elem_size, cell_bytes), static_cast<uint64_t>(nchannels));
  const uint64_t begin = Min(count, static_cast<uint64_t>(channel) * per_channel * cell_elems);
  const uint64_t end = Min(count, static_cast<uint64_t>(channel + 1) * per_channel * cell_elems);
  return Range{begin, end - begin};
}

// How many of the first channels get a non-empty part (0 when count == 0).
GR_HOST_DEVICE constexpr int ChannelsUsed(uint64_t count, int elem_size, int nchannels,
                                          uint64_t cell_bytes = kChannelAlignBytes) {
  const uint64_t cells = CellCount(count, elem_size, cell_bytes);
  if (cells == 0) return 0;
  return static_cast<int>(DivUp(cells, DivUp(cells, static_cast<uint64_t>(nchannels))));
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PATTERNS_CHANNEL_SPLIT_H_
