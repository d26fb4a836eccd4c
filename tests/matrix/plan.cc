// Case descriptions, plan dispatch and the building blocks shared by the
// plans of every collective (case_plan.h).
#include <algorithm>
#include <cstdio>

#include "tests/matrix/case_plan.h"

namespace gpurun::matrix {

std::string Describe(const Case& c) {
  char text[256];
  char root[16] = "-";
  if (IsRooted(c.coll)) std::snprintf(root, sizeof(root), "%d", c.root);
  std::snprintf(text, sizeof(text),
                "%s type=%s op=%s bytes=%zu count=%zu offset=%zu inplace=%d root=%s algo=%s proto=%s", CollName(c.coll),
                TypeName(c.type), IsReducing(c.coll) ? OpName(c.op) : "-", c.bytes, c.count, c.offset,
                c.in_place ? 1 : 0, root, AlgoName(c.algo), ProtoName(c.proto));
  return text;
}

Plan MakePlan(const Case& c, PlanContext& x) {
  switch (c.coll) {
    case Coll::kAllreduce: return PlanAllreduce(c, x);
    case Coll::kBcast: return PlanBcast(c, x);
    case Coll::kBroadcast: return PlanBroadcast(c, x);
    case Coll::kReduce: return PlanReduce(c, x);
    case Coll::kAllgather: return PlanAllgather(c, x);
    case Coll::kAllgatherv: return PlanAllgatherv(c, x);
    case Coll::kReducescatter: return PlanReducescatter(c, x);
    case Coll::kAlltoall: return PlanAlltoall(c, x);
    case Coll::kAlltoallv: return PlanAlltoallv(c, x);
    case Coll::kGather: return PlanGather(c, x);
    case Coll::kGatherv: return PlanGatherv(c, x);
    case Coll::kScatter: return PlanScatter(c, x);
    case Coll::kScatterv: return PlanScatterv(c, x);
    case Coll::kBarrier: break;  // no buffers: coll_matrix runs it on its own
  }
  return Plan{};
}

bool MayBeUnsupported(const PlanContext& x, Coll coll) {
  return x.device != nullptr &&
         std::find(x.may_be_unsupported.begin(), x.may_be_unsupported.end(), coll) != x.may_be_unsupported.end();
}

const Pattern& RankData(PlanContext& x, grDataType_t type, int r) {
  return x.patterns->Input(ValueKind::kMove, type, static_cast<size_t>(r));
}

const Pattern& PairData(PlanContext& x, grDataType_t type, int src, int dst) {
  // Salts kMaxRanks.. keep pair sequences apart from the per-rank ones.
  return x.patterns->Input(ValueKind::kMove, type, static_cast<size_t>(kMaxRanks + src * kMaxRanks + dst));
}

VLayout ReversedLayout(size_t c, int nranks, size_t gap) {
  VLayout l;
  l.counts.resize(nranks);
  l.displs.resize(nranks);
  for (int r = 0; r < nranks; ++r) l.counts[r] = VCount(c, r);
  size_t at = gap;
  for (int r = nranks - 1; r >= 0; --r) {
    l.displs[r] = at;
    at += l.counts[r] + gap;
  }
  l.total = at;
  return l;
}

}  // namespace gpurun::matrix
