// WorkDesc: one channel's share of one collective call, fixed-layout and
// trivially copyable so the same struct can later be copied to a GPU kernel
// (STYLE.md §5; NCCL's ncclDevWorkColl). The host executor runs it as is.
//
// Element counts and offsets are in elements of `type`. A work covers the
// range [part_offset, part_offset + part_count) of the buffer (AllGather /
// ReduceScatter: of every rank's block, whose size is `count`), cut into
// chunks of `chunk_count` elements, `loops` rounds of the algorithm
// (chunking.h). The tree algorithm gets one work per tree and channel: tree
// `tree` carries its half of the channel's part.
#ifndef GPURUN_COLL_PLANNER_WORK_H_
#define GPURUN_COLL_PLANNER_WORK_H_

#include <cstdint>
#include <type_traits>

#include "coll/coll_types.h"

namespace gpurun::coll {

struct WorkDesc {
  Func func;
  Algo algo;
  Protocol proto;
  DataType type;
  RedOp op;
  uint8_t tree;      // tree algorithm: 0 or 1; ring: 0
  uint16_t channel;  // channel this work runs on
  int32_t nranks;
  int32_t ring_index;   // this rank's position in the ring order
  int32_t root;         // broadcast / reduce: the root's ring position
  int32_t chunk_steps;  // FIFO steps per primitive call (chunking.h ChunkSteps)
  int32_t slice_steps;
  int32_t elem_size;
  uint64_t count;        // the call's count (per rank for AllGather / ReduceScatter)
  uint64_t part_offset;  // start of this work's part
  uint64_t part_count;   // elements in it (0: nothing to do)
  uint64_t chunk_count;  // elements per chunk (ring AllReduce: per chunk of a full loop)
  uint64_t loops;        // rounds of the algorithm
  uint64_t step_elems;   // data elements one FIFO step carries
};
static_assert(std::is_trivially_copyable_v<WorkDesc>);
static_assert(std::is_standard_layout_v<WorkDesc>);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_PLANNER_WORK_H_
