// Plans of the gathering collectives: allgather, allgatherv, gather, gatherv.
// Rank r contributes its own move sequence; the v-variants use
// ReversedLayout (uneven and zero counts, blocks in reverse rank order with
// poison gaps that must survive the call).
#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {
namespace {

constexpr size_t kGap = 3;

// Every rank's block of `layout` holds that rank's sequence.
std::vector<Segment> Blocks(const Case& c, PlanContext& x, const VLayout& layout) {
  std::vector<Segment> segs;
  for (int r = 0; r < x.nranks; ++r) segs.push_back(Seg(layout.displs[r], layout.counts[r], RankData(x, c.type, r)));
  return segs;
}

// Uniform blocks of `count`, in rank order, without gaps.
VLayout Uniform(size_t count, int nranks) {
  VLayout l;
  for (int r = 0; r < nranks; ++r) {
    l.counts.push_back(count);
    l.displs.push_back(count * r);
  }
  l.total = count * nranks;
  return l;
}

// `receives`: this rank's receive buffer gets every block of `l` (else it is
// unused and must stay poison). In place (receiving ranks only), this rank's
// input already lies in its block and the send pointer points there.
Plan GatherInto(const Case& c, PlanContext& x, const VLayout& l, bool receives) {
  const int me = x.rank;
  const Pattern& mine = RankData(x, c.type, me);
  Plan p;
  p.in_place = c.in_place && receives;
  if (p.in_place) {
    p.recv = {l.total, {Seg(l.displs[me], l.counts[me], mine)}, Blocks(c, x, l)};
    p.send_at = l.displs[me];
    return p;
  }
  p.send = {l.counts[me], {Seg(0, l.counts[me], mine)}, {Seg(0, l.counts[me], mine)}};
  p.recv = {l.total, {}, receives ? Blocks(c, x, l) : std::vector<Segment>{}};
  return p;
}

}  // namespace

Plan PlanAllgather(const Case& c, PlanContext& x) {
  Plan p = GatherInto(c, x, Uniform(c.count, x.nranks), /*receives=*/true);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grAllgather(s, r, c.count, c.type, comm, stream); };
  return p;
}

Plan PlanAllgatherv(const Case& c, PlanContext& x) {
  const VLayout l = ReversedLayout(c.count, x.nranks, kGap);
  Plan p = GatherInto(c, x, l, /*receives=*/true);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  const size_t sendcount = l.counts[x.rank];
  p.call = [=](const void* s, void* r) {
    return grAllgatherv(s, sendcount, r, l.counts.data(), l.displs.data(), c.type, comm, stream);
  };
  return p;
}

// Non-roots get a poisoned receive buffer, which must stay untouched.
Plan PlanGather(const Case& c, PlanContext& x) {
  Plan p = GatherInto(c, x, Uniform(c.count, x.nranks), /*receives=*/x.rank == c.root);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grGather(s, r, c.count, c.type, c.root, comm, stream); };
  return p;
}

Plan PlanGatherv(const Case& c, PlanContext& x) {
  const VLayout l = ReversedLayout(c.count, x.nranks, kGap);
  Plan p = GatherInto(c, x, l, /*receives=*/x.rank == c.root);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  const size_t sendcount = l.counts[x.rank];
  p.call = [=](const void* s, void* r) {
    return grGatherv(s, sendcount, r, l.counts.data(), l.displs.data(), c.type, c.root, comm, stream);
  };
  return p;
}

}  // namespace gpurun::matrix
