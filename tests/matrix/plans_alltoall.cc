// Plans of alltoall and alltoallv. Rank i's block for rank j is the pair
// sequence (i, j). Alltoallv sends M(i, j) = VCount(c, i + j) elements from
// i to j (symmetric, as MPI_IN_PLACE needs), its send blocks in rank order
// with one poison element around each, its receive blocks in reverse rank
// order with two.
#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {
namespace {

// Blocks of `counts` at `displs`: block r holds the pair sequence
// (me, r) when `outgoing`, else (r, me).
std::vector<Segment> PairBlocks(const Case& c, PlanContext& x, const VLayout& l, bool outgoing) {
  std::vector<Segment> segs;
  for (int r = 0; r < x.nranks; ++r) {
    const Pattern& data = outgoing ? PairData(x, c.type, x.rank, r) : PairData(x, c.type, r, x.rank);
    segs.push_back(Seg(l.displs[r], l.counts[r], data));
  }
  return segs;
}

Plan Exchange(const Case& c, PlanContext& x, const VLayout& send, const VLayout& recv) {
  Plan p;
  p.in_place = c.in_place;
  if (c.in_place) {
    p.recv = {recv.total, PairBlocks(c, x, recv, true), PairBlocks(c, x, recv, false)};
  } else {
    const std::vector<Segment> out = PairBlocks(c, x, send, true);
    p.send = {send.total, out, out};
    p.recv = {recv.total, {}, PairBlocks(c, x, recv, false)};
  }
  return p;
}

VLayout Forward(const std::vector<size_t>& counts, size_t gap) {
  VLayout l;
  l.counts = counts;
  size_t at = gap;
  for (size_t count : counts) {
    l.displs.push_back(at);
    at += count + gap;
  }
  l.total = at;
  return l;
}

VLayout Backward(const std::vector<size_t>& counts, size_t gap) {
  VLayout l;
  l.counts = counts;
  l.displs.resize(counts.size());
  size_t at = gap;
  for (size_t r = counts.size(); r-- > 0;) {
    l.displs[r] = at;
    at += counts[r] + gap;
  }
  l.total = at;
  return l;
}

}  // namespace

Plan PlanAlltoall(const Case& c, PlanContext& x) {
  const VLayout l = Forward(std::vector<size_t>(x.nranks, c.count), 0);
  Plan p = Exchange(c, x, l, l);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grAlltoall(s, r, c.count, c.type, comm, stream); };
  return p;
}

// In place the send counts and displacements are ignored (gpurun.h): they are
// passed as null.
Plan PlanAlltoallv(const Case& c, PlanContext& x) {
  std::vector<size_t> counts;
  for (int r = 0; r < x.nranks; ++r) counts.push_back(VCount(c.count, x.rank + r));
  const VLayout send = Forward(counts, 1);
  const VLayout recv = Backward(counts, 2);
  Plan p = Exchange(c, x, send, recv);
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  const bool in_place = c.in_place;
  p.call = [=](const void* s, void* r) {
    return grAlltoallv(s, in_place ? nullptr : send.counts.data(), in_place ? nullptr : send.displs.data(), r,
                       recv.counts.data(), recv.displs.data(), c.type, comm, stream);
  };
  return p;
}

}  // namespace gpurun::matrix
