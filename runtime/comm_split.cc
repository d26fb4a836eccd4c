// Communicator split and dup over point-to-point messages (see comm_split.h).
#include "runtime/comm_split.h"

#include <algorithm>
#include <numeric>

#include "p2p/match_header.h"
#include "p2p/request.h"

namespace gpurun {
namespace {

// Tags on the parent's internal context. Members run splits on one parent in
// the same order and messages of one (source, tag, context) never overtake
// each other, so consecutive splits cannot mix up their messages.
constexpr int kSplitGatherTag = 1;
constexpr int kSplitTableTag = 2;

std::span<std::byte> AsBytes(std::span<SplitEntry> entries) {
  return {reinterpret_cast<std::byte*>(entries.data()), entries.size_bytes()};
}

p2p::SendArgs SendTo(const grComm& parent, int dest, int tag, std::span<SplitEntry> data, const char* what) {
  return p2p::SendArgs{parent.internal_context_id, parent.rank, dest, parent.world_ranks[dest], tag, data.data(),
                       data.size_bytes(),          what};
}

p2p::RecvArgs RecvFrom(const grComm& parent, int source, int tag, std::span<SplitEntry> data, const char* what) {
  return p2p::RecvArgs{parent.internal_context_id,
                       source,
                       parent.world_ranks[source],
                       tag,
                       AsBytes(data).data(),
                       data.size_bytes(),
                       1,
                       what};
}

// Parent rank 0 gathers every member's entry and sends the table back; the
// others send theirs and receive the table. Returns the table on every member.
StatusOr<std::vector<SplitEntry>> ExchangeEntries(p2p::Engine& engine, const grComm& parent, SplitEntry mine,
                                                  const char* what) {
  std::vector<SplitEntry> table(parent.size);
  table[parent.rank] = mine;
  std::vector<p2p::Request*> requests;
  if (parent.rank == 0) {
    for (int r = 1; r < parent.size; ++r) {
      GR_ASSIGN_OR_RETURN(p2p::Request * q,
                          engine.Irecv(RecvFrom(parent, r, kSplitGatherTag, std::span(&table[r], 1), what)));
      requests.push_back(q);
    }
    GR_RETURN_IF_ERROR(engine.WaitAll(requests, nullptr));
    requests.clear();
    for (int r = 1; r < parent.size; ++r) {
      GR_ASSIGN_OR_RETURN(p2p::Request * q, engine.Isend(SendTo(parent, r, kSplitTableTag, table, what)));
      requests.push_back(q);
    }
  } else {
    GR_ASSIGN_OR_RETURN(p2p::Request * sent,
                        engine.Isend(SendTo(parent, 0, kSplitGatherTag, std::span(&mine, 1), what)));
    requests.push_back(sent);
    GR_ASSIGN_OR_RETURN(p2p::Request * got, engine.Irecv(RecvFrom(parent, 0, kSplitTableTag, table, what)));
    requests.push_back(got);
  }
  GR_RETURN_IF_ERROR(engine.WaitAll(requests, nullptr));
  return table;
}

StatusOr<grComm*> SplitAs(Context& ctx, grComm& parent, int color, int key, const char* what) {
  if (color < 0 && color != GR_UNDEFINED) {
    return InvalidArgument("color " + std::to_string(color) + " is negative and not GR_UNDEFINED");
  }
  const SplitEntry mine{color, key, ctx.next_context_id()};
  GR_ASSIGN_OR_RETURN(std::vector<SplitEntry> table, ExchangeEntries(ctx.engine(), parent, mine, what));
  GR_ASSIGN_OR_RETURN(SplitResult split, ComputeSplit(table, parent.rank));
  ctx.set_next_context_id(std::max(ctx.next_context_id(), split.context_id + 2));
  if (split.rank < 0) return static_cast<grComm*>(nullptr);
  auto comm = std::make_unique<grComm>();
  comm->context = &ctx;
  comm->rank = split.rank;
  comm->size = static_cast<int>(split.members.size());
  for (int r : split.members) comm->world_ranks.push_back(parent.world_ranks[r]);
  comm->context_id = split.context_id;
  comm->internal_context_id = split.context_id + 1;
  return ctx.AdoptComm(std::move(comm));
}

}  // namespace

StatusOr<SplitResult> ComputeSplit(std::span<const SplitEntry> table, int parent_rank) {
  if (parent_rank < 0 || parent_rank >= static_cast<int>(table.size())) {
    return InternalError("split: parent rank " + std::to_string(parent_rank) + " outside a table of " +
                         std::to_string(table.size()));
  }
  SplitResult result;
  for (const SplitEntry& e : table) result.context_id = std::max(result.context_id, e.next_context);
  if (result.context_id + 1 > p2p::kMaxContext) {
    return InvalidUsage("no free communicator context: the 16-bit context space (" +
                        std::to_string(p2p::kMaxContext + 1) +
                        " ids, 2 per communicator) is used up, and ids are not reused after grCommFree");
  }
  const int color = table[parent_rank].color;
  if (color == GR_UNDEFINED) return result;
  for (int r = 0; r < static_cast<int>(table.size()); ++r) {
    if (table[r].color == color) result.members.push_back(r);
  }
  std::stable_sort(result.members.begin(), result.members.end(),
                   [&](int a, int b) { return table[a].key < table[b].key; });
  result.rank =
      static_cast<int>(std::find(result.members.begin(), result.members.end(), parent_rank) - result.members.begin());
  return result;
}

StatusOr<grComm*> SplitComm(Context& ctx, grComm& parent, int color, int key) {
  return SplitAs(ctx, parent, color, key, "grCommSplit");
}

StatusOr<grComm*> DupComm(Context& ctx, grComm& parent) { return SplitAs(ctx, parent, 0, parent.rank, "grCommDup"); }

}  // namespace gpurun
