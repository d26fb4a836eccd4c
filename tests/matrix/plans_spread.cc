// Plans of the collectives that spread the root's data: bcast (grBcast),
// broadcast (grBroadcast), scatter, scatterv. Buffers a rank does not use
// (the send buffer of a non-root) must come back untouched.
#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {
namespace {

constexpr size_t kGap = 3;

// Salt of the data a non-root passes where only the root's is read.
constexpr int kIgnoredSalt = 1000;

}  // namespace

// grBcast has one buffer, input at the root and output everywhere: it runs in
// the in-place mode only.
Plan PlanBcast(const Case& c, PlanContext& x) {
  const size_t n = c.count;
  const Pattern& data = RankData(x, c.type, c.root);
  Plan p;
  p.in_place = true;
  p.recv = {n, {}, {Seg(0, n, data)}};
  if (x.rank == c.root) p.recv.before = {Seg(0, n, data)};
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void*, void* r) { return grBcast(r, n, c.type, c.root, comm, stream); };
  return p;
}

Plan PlanBroadcast(const Case& c, PlanContext& x) {
  const size_t n = c.count;
  const bool root = x.rank == c.root;
  const Pattern& data = RankData(x, c.type, c.root);
  Plan p;
  p.in_place = c.in_place;
  p.recv = {n, {}, {Seg(0, n, data)}};
  if (c.in_place) {
    if (root) p.recv.before = {Seg(0, n, data)};
  } else {
    const Pattern& mine = root ? data : RankData(x, c.type, kIgnoredSalt + x.rank);
    p.send = {n, {Seg(0, n, mine)}, {Seg(0, n, mine)}};
  }
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grBroadcast(s, r, n, c.type, c.root, comm, stream); };
  return p;
}

namespace {

// The root sends block r of `l` to rank r; in place (root only) its own block
// stays where it is and the receive pointer points at it.
Plan ScatterFrom(const Case& c, PlanContext& x, const VLayout& l) {
  const int me = x.rank;
  const bool root = me == c.root;
  std::vector<Segment> blocks;
  for (int r = 0; r < x.nranks; ++r) blocks.push_back(Seg(l.displs[r], l.counts[r], PairData(x, c.type, c.root, r)));
  Plan p;
  p.in_place = c.in_place && root;
  if (p.in_place) {
    p.recv = {l.total, blocks, blocks};
    p.recv_at = l.displs[me];
    return p;
  }
  const Pattern& mine = PairData(x, c.type, c.root, me);
  p.send = {l.total, {}, {}};
  if (root) p.send.before = p.send.after = blocks;
  p.recv = {l.counts[me], {}, {Seg(0, l.counts[me], mine)}};
  return p;
}

}  // namespace

Plan PlanScatter(const Case& c, PlanContext& x) {
  VLayout l;
  for (int r = 0; r < x.nranks; ++r) {
    l.counts.push_back(c.count);
    l.displs.push_back(c.count * r);
  }
  l.total = c.count * x.nranks;
  Plan p = ScatterFrom(c, x, l);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grScatter(s, r, c.count, c.type, c.root, comm, stream); };
  return p;
}

Plan PlanScatterv(const Case& c, PlanContext& x) {
  const VLayout l = ReversedLayout(c.count, x.nranks, kGap);
  Plan p = ScatterFrom(c, x, l);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  const size_t recvcount = l.counts[x.rank];
  p.call = [=](const void* s, void* r) {
    return grScatterv(s, l.counts.data(), l.displs.data(), r, recvcount, c.type, c.root, comm, stream);
  };
  return p;
}

}  // namespace gpurun::matrix
