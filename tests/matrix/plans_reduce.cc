// Plans of the reducing collectives: allreduce, reduce, reducescatter.
// Each rank's input is its own sequence of the op's kind (pattern.h); the
// output is the exact reduction over all ranks.
#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {
namespace {

const Pattern& In(const Case& c, PlanContext& x) { return x.patterns->Input(KindOf(c.op), c.type, x.rank); }
const Pattern& Out(const Case& c, PlanContext& x) { return x.patterns->Reduced(c.type, c.op); }

}  // namespace

Plan PlanAllreduce(const Case& c, PlanContext& x) {
  const size_t n = c.count;
  Plan p;
  p.in_place = c.in_place;
  if (c.in_place) {
    p.recv = {n, {Seg(0, n, In(c, x))}, {Seg(0, n, Out(c, x))}};
  } else {
    p.send = {n, {Seg(0, n, In(c, x))}, {Seg(0, n, In(c, x))}};
    p.recv = {n, {}, {Seg(0, n, Out(c, x))}};
  }
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grAllreduce(s, r, n, c.type, c.op, comm, stream); };
  return p;
}

// Only the root's receive buffer is written; elsewhere it stays as it was
// (poison out of place, the input in place).
Plan PlanReduce(const Case& c, PlanContext& x) {
  const size_t n = c.count;
  const bool root = x.rank == c.root;
  Plan p;
  p.in_place = c.in_place;
  if (c.in_place) {
    p.recv = {n, {Seg(0, n, In(c, x))}, {Seg(0, n, root ? Out(c, x) : In(c, x))}};
  } else {
    p.send = {n, {Seg(0, n, In(c, x))}, {Seg(0, n, In(c, x))}};
    p.recv = {n, {}, {}};
    if (root) p.recv.after = {Seg(0, n, Out(c, x))};
  }
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grReduce(s, r, n, c.type, c.op, c.root, comm, stream); };
  return p;
}

// Every rank's input is nranks blocks of `count` (one sequence over the whole
// buffer); rank r gets block r of the reduction. In place the other blocks of
// the buffer are left undefined.
Plan PlanReducescatter(const Case& c, PlanContext& x) {
  const size_t n = c.count;
  const size_t all = n * x.nranks;
  const size_t mine = n * x.rank;
  Plan p;
  p.in_place = c.in_place;
  if (c.in_place) {
    p.recv = {all,
              {Seg(0, all, In(c, x))},
              {Unchecked(0, mine), Seg(mine, n, Out(c, x), mine), Unchecked(mine + n, all - mine - n)}};
    p.recv_at = mine;
  } else {
    p.send = {all, {Seg(0, all, In(c, x))}, {Seg(0, all, In(c, x))}};
    p.recv = {n, {}, {Seg(0, n, Out(c, x), mine)}};
  }
  const grComm_t comm = x.comm;
  const grStream_t stream = x.stream;
  p.call = [=](const void* s, void* r) { return grReduceScatter(s, r, n, c.type, c.op, comm, stream); };
  return p;
}

}  // namespace gpurun::matrix
