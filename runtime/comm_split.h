// grCommSplit and grCommDup behind the C API.
//
// Agreement, collective over the parent communicator and carried by
// point-to-point messages on its internal context: every member sends
// (color, key, its next free context id) to parent rank 0, which sends the
// whole table back to every member. Every member then computes the same
// result (ComputeSplit): the new communicator's context id X is the largest
// proposal — each member's next free id is above every id it has ever used,
// so X and X + 1 (the new internal context) are unused on every member — and
// the members of each color are ordered by (key, parent rank). Members of
// different colors get the same X, which is safe: their groups are disjoint.
// Every member, GR_UNDEFINED ones included, then moves its next free id past
// X + 1. Ids are never reused, so a job can create at most about 32767
// communicators over its lifetime (16-bit context space, p2p::kMaxContext);
// running out is a clear grInvalidUsage error on every member.
#ifndef GPURUN_RUNTIME_COMM_SPLIT_H_
#define GPURUN_RUNTIME_COMM_SPLIT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/comm.h"
#include "runtime/context.h"

namespace gpurun {

// One member's contribution to a split.
struct SplitEntry {
  int32_t color = 0;
  int32_t key = 0;
  uint32_t next_context = 0;  // the member's next free context id
};

struct SplitResult {
  uint32_t context_id = 0;   // user context of the new communicator; internal = context_id + 1
  std::vector<int> members;  // parent ranks in new-rank order; empty for GR_UNDEFINED
  int rank = -1;             // this member's new rank, -1 for GR_UNDEFINED
};

// Pure: the split that `table` (indexed by parent rank) describes, seen from
// `parent_rank`. Fails when the context space is used up.
StatusOr<SplitResult> ComputeSplit(std::span<const SplitEntry> table, int parent_rank);

// Collective over `parent`: the new communicator, or null for GR_UNDEFINED.
StatusOr<grComm*> SplitComm(Context& ctx, grComm& parent, int color, int key);
// Collective: SplitComm with one color and key = parent rank.
StatusOr<grComm*> DupComm(Context& ctx, grComm& parent);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COMM_SPLIT_H_
