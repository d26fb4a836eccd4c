// The benchmark's data check against a reference: each rank's buffers are
// prepared as gpurun-bench prepares them, a straightforward implementation of
// the collective's definition (reading the other ranks' send buffers) writes
// the outputs, and CountWrong must find nothing wrong; one changed element
// must be found. Every collective, type and op, in and out of place, over
// 1, 2, 3, 4 and 8 ranks and roots 0 and n-1.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench/coll_buffers.h"
#include "bench/elem_codec.h"

namespace {

struct Job {
  std::vector<CollCase> cases;
  std::vector<std::unique_ptr<CollBuffers>> buffers;
};

Job Prepare(const DataPattern& p, size_t bytes, bool in_place) {
  Job job;
  for (int r = 0; r < p.nranks; ++r) {
    CollCase c{p, MakeLayout(p.kind, bytes, ElemSize(p.type), p.nranks, r, p.root), r, in_place};
    job.buffers.push_back(std::make_unique<CollBuffers>(bytes));
    PrepareCheck(c, *job.buffers.back());
    job.cases.push_back(c);
  }
  return job;
}

double Send(const Job& job, int rank, size_t index) {
  const CollCase& c = job.cases[rank];
  return LoadElem(c.pattern.type, SendPointer(c, *job.buffers[rank]), index);
}

// The reduction of the ranks' send element `index`, in the element type.
double Reduce(const Job& job, size_t index) {
  const DataPattern& p = job.cases[0].pattern;
  double acc = Send(job, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const double v = Send(job, r, index);
    if (p.op == grSum || p.op == grAvg) acc = RoundToType(p.type, acc + v);
    if (p.op == grProd) acc = RoundToType(p.type, acc * v);
    if (p.op == grMax) acc = std::fmax(acc, v);
    if (p.op == grMin) acc = std::fmin(acc, v);
  }
  if (p.op != grAvg) return acc;
  return RoundToType(p.type, IsFloating(p.type) ? acc / p.nranks : std::trunc(acc / p.nranks));
}

// Output element j of `rank` by the collective's definition.
double Reference(const Job& job, int rank, size_t j) {
  const CollCase& c = job.cases[rank];
  const size_t count = c.layout.count;
  const int root = c.pattern.root;
  switch (c.pattern.kind) {
    case CollKind::kAllreduce:
    case CollKind::kReduce: return Reduce(job, j);
    case CollKind::kReduceScatter: return Reduce(job, rank * count + j);
    case CollKind::kBcast: return Send(job, root, j);
    case CollKind::kAllgather:
    case CollKind::kGather: return Send(job, static_cast<int>(j / count), j % count);
    case CollKind::kScatter: return Send(job, root, rank * count + j);
    case CollKind::kAlltoall: return Send(job, static_cast<int>(j / count), rank * count + j % count);
    case CollKind::kSendrecv: return Send(job, (rank - 1 + c.pattern.nranks) % c.pattern.nranks, j);
    case CollKind::kBarrier: break;
  }
  return NAN;
}

bool Receives(const CollCase& c) {
  const bool rooted = c.pattern.kind == CollKind::kReduce || c.pattern.kind == CollKind::kGather;
  return !rooted || c.rank == c.pattern.root;
}

// Computes every output first (in place, outputs overwrite inputs), then stores them.
void RunReference(Job& job) {
  std::vector<std::vector<double>> out(job.cases.size());
  for (size_t r = 0; r < job.cases.size(); ++r) {
    if (!Receives(job.cases[r])) continue;
    for (size_t j = 0; j < job.cases[r].layout.recv_elems; ++j)
      out[r].push_back(Reference(job, static_cast<int>(r), j));
  }
  for (size_t r = 0; r < job.cases.size(); ++r) {
    const CollCase& c = job.cases[r];
    for (size_t j = 0; j < out[r].size(); ++j) StoreElem(c.pattern.type, RecvPointer(c, *job.buffers[r]), j, out[r][j]);
  }
}

using Param = std::tuple<CollKind, int>;
class CollCheck : public ::testing::TestWithParam<Param> {};

TEST_P(CollCheck, ReferenceOutputsPassAndACorruptionIsCounted) {
  const auto [kind, nranks] = GetParam();
  const std::vector<grRedOp_t> ops =
      IsReduction(kind) ? std::vector<grRedOp_t>{grSum, grProd, grMax, grMin, grAvg} : std::vector<grRedOp_t>{grSum};
  const std::vector<int> roots = HasRoot(kind) ? std::vector<int>{0, nranks - 1} : std::vector<int>{0};
  for (int t = 0; t < grNumDataTypes; ++t) {
    for (grRedOp_t op : ops) {
      for (int root : roots) {
        for (bool in_place : {false, true}) {
          for (int iter : {0, 3}) {
            const DataPattern p{kind, static_cast<grDataType_t>(t), op, root, nranks, iter};
            const std::string what = std::string(CollName(kind)) + " type " + std::to_string(t) + " op " +
                                     std::to_string(op) + " root " + std::to_string(root) +
                                     (in_place ? " in place" : "") + " iter " + std::to_string(iter);
            Job job = Prepare(p, 8 * 24 * 7, in_place);
            // Before the call an out-of-place output is all poison: every element is wrong.
            const CollCase& receiver = job.cases[root];
            if (!in_place) {
              EXPECT_EQ(CountWrong(receiver, *job.buffers[root]), receiver.layout.recv_elems) << what;
            }
            RunReference(job);
            for (int r = 0; r < nranks; ++r) {
              ASSERT_EQ(CountWrong(job.cases[r], *job.buffers[r]), 0u) << what << " rank " << r;
            }
            const CollCase& c = job.cases[root];
            if (c.layout.recv_elems == 0) continue;
            char* out = static_cast<char*>(RecvPointer(c, *job.buffers[root]));
            const size_t elem = ElemSize(p.type);
            out[(c.layout.recv_elems - 1) * elem + elem - 1] ^= 0x40;  // the top byte of the last element
            EXPECT_EQ(CountWrong(c, *job.buffers[root]), 1u) << what;
          }
        }
      }
    }
  }
}

// sendrecv's receive buffer must hold exactly what the previous rank sent:
// the block of any other rank (the next one, this rank's own: a loopback), or
// the previous rank's block of another iteration, is wrong in every element.
TEST(CollCheck, SendrecvCatchesABlockFromTheWrongRankOrIteration) {
  for (int nranks : {1, 2, 3, 4, 8}) {
    for (int t = 0; t < grNumDataTypes; ++t) {
      const auto type = static_cast<grDataType_t>(t);
      const DataPattern p{CollKind::kSendrecv, type, grSum, 0, nranks, 1};
      Job job = Prepare(p, 8 * 24 * 7, false);
      DataPattern stale = p;
      stale.iter = 0;
      const Job old = Prepare(stale, 8 * 24 * 7, false);
      for (int r = 0; r < nranks; ++r) {
        const CollCase& c = job.cases[r];
        const size_t bytes = c.layout.count * ElemSize(type);
        void* out = RecvPointer(c, *job.buffers[r]);
        const std::string what =
            "type " + std::to_string(t) + ", rank " + std::to_string(r) + " of " + std::to_string(nranks);
        const int prev = (r - 1 + nranks) % nranks;
        std::memcpy(out, SendPointer(job.cases[prev], *job.buffers[prev]), bytes);
        EXPECT_EQ(CountWrong(c, *job.buffers[r]), 0u) << what;
        std::memcpy(out, SendPointer(old.cases[prev], *old.buffers[prev]), bytes);
        EXPECT_EQ(CountWrong(c, *job.buffers[r]), c.layout.count) << what << ": iteration 0's block";
        if (nranks == 1) continue;  // the previous rank is this one
        std::memcpy(out, SendPointer(c, *job.buffers[r]), bytes);
        EXPECT_EQ(CountWrong(c, *job.buffers[r]), c.layout.count) << what << ": its own block";
        const int next = (r + 1) % nranks;
        if (next == prev) continue;
        std::memcpy(out, SendPointer(job.cases[next], *job.buffers[next]), bytes);
        EXPECT_EQ(CountWrong(c, *job.buffers[r]), c.layout.count) << what << ": the next rank's block";
      }
    }
  }
}

TEST(CollData, InputsDifferAcrossRanksAndIterations) {
  const DataPattern p0{CollKind::kAllgather, grInt32, grSum, 0, 4, 0};
  DataPattern p1 = p0;
  p1.iter = 1;
  int same_rank = 0, same_iter = 0;
  for (size_t i = 0; i < 100; ++i) {
    same_rank += InputValue(p0, 0, i) == InputValue(p0, 1, i);
    same_iter += InputValue(p0, 0, i) == InputValue(p1, 0, i);
  }
  EXPECT_EQ(same_rank, 0);
  EXPECT_EQ(same_iter, 0);
}

TEST(CollData, SumsStayExactInTheNarrowTypes) {
  for (grDataType_t type : {grInt8, grUint8, grFloat16, grBfloat16}) {
    const DataPattern p{CollKind::kAllreduce, type, grSum, 0, 31, 0};
    for (size_t i = 0; i < 64; ++i) {
      double exact = 0;
      for (int r = 0; r < p.nranks; ++r) exact += InputValue(p, r, i);
      if (type == grUint8) exact = std::fmod(exact, 256);
      EXPECT_EQ(ReducedValue(p, i), exact) << type << " " << i;
    }
  }
}

TEST(CollData, AverageToleratesTwoUlpsForFloatsOnly) {
  const DataPattern f{CollKind::kAllreduce, grFloat32, grAvg, 0, 3, 0};
  EXPECT_TRUE(ValueMatches(f, 1.0 / 3 + 5e-8, 1.0 / 3));  // 2 ulps at 1/3 are 6e-8
  EXPECT_FALSE(ValueMatches(f, 1.0 / 3 + 1e-7, 1.0 / 3));
  const DataPattern i{CollKind::kAllreduce, grInt32, grAvg, 0, 3, 0};
  EXPECT_FALSE(ValueMatches(i, 2, 1));
  const DataPattern s{CollKind::kAllreduce, grFloat32, grSum, 0, 3, 0};
  EXPECT_FALSE(ValueMatches(s, 1.0 + 1e-7, 1.0));
}

std::string Name(const ::testing::TestParamInfo<Param>& info) {
  return std::string(CollName(std::get<0>(info.param))) + "_" + std::to_string(std::get<1>(info.param)) + "ranks";
}

INSTANTIATE_TEST_SUITE_P(All, CollCheck,
                         ::testing::Combine(::testing::Values(CollKind::kAllreduce, CollKind::kBcast, CollKind::kReduce,
                                                              CollKind::kAllgather, CollKind::kReduceScatter,
                                                              CollKind::kAlltoall, CollKind::kGather,
                                                              CollKind::kScatter, CollKind::kSendrecv),
                                            ::testing::Values(1, 2, 3, 4, 8)),
                         Name);

}  // namespace
