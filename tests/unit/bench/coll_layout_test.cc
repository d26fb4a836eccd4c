// Per-collective geometry of a sweep row: counts, buffer extents, the "size"
// column, in-place views and nccl-tests' bus-bandwidth factors.
#include "bench/coll_layout.h"

#include <gtest/gtest.h>

namespace {

TEST(CollLayout, WholeBufferCollectives) {
  for (CollKind kind : {CollKind::kAllreduce, CollKind::kBcast, CollKind::kReduce}) {
    const CollLayout l = MakeLayout(kind, 103, 4, 3, 1, 0);
    EXPECT_EQ(l.count, 25u);
    EXPECT_EQ(l.send_elems, 25u);
    EXPECT_EQ(l.recv_elems, 25u);
    EXPECT_EQ(l.bytes, 100u);
    EXPECT_TRUE(l.in_place_here);
    EXPECT_EQ(l.in_place_send_offset, 0u);
    EXPECT_EQ(l.in_place_recv_offset, 0u);
  }
  EXPECT_DOUBLE_EQ(MakeLayout(CollKind::kAllreduce, 64, 4, 4, 0, 0).bus_factor, 1.5);  // 2(n-1)/n
  EXPECT_DOUBLE_EQ(MakeLayout(CollKind::kBcast, 64, 4, 4, 0, 0).bus_factor, 1.0);
  EXPECT_DOUBLE_EQ(MakeLayout(CollKind::kReduce, 64, 4, 4, 0, 0).bus_factor, 1.0);
}

TEST(CollLayout, AllgatherAndGatherCountPerRank) {
  // 100 bytes of floats over 4 ranks: 6 per rank, 24 in the receive buffer.
  const CollLayout ag = MakeLayout(CollKind::kAllgather, 100, 4, 4, 2, 0);
  EXPECT_EQ(ag.count, 6u);
  EXPECT_EQ(ag.send_elems, 6u);
  EXPECT_EQ(ag.recv_elems, 24u);
  EXPECT_EQ(ag.bytes, 96u);
  EXPECT_TRUE(ag.in_place_here);
  EXPECT_EQ(ag.in_place_send_offset, 12u);  // rank 2's block
  EXPECT_DOUBLE_EQ(ag.bus_factor, 0.75);

  const CollLayout root = MakeLayout(CollKind::kGather, 100, 4, 4, 1, 1);
  EXPECT_TRUE(root.in_place_here);
  EXPECT_EQ(root.in_place_send_offset, 6u);
  EXPECT_FALSE(MakeLayout(CollKind::kGather, 100, 4, 4, 2, 1).in_place_here);
}

TEST(CollLayout, ReduceScatterAndScatterCountPerRank) {
  const CollLayout rs = MakeLayout(CollKind::kReduceScatter, 64, 2, 3, 2, 0);
  EXPECT_EQ(rs.count, 10u);  // 32 elements / 3 ranks
  EXPECT_EQ(rs.send_elems, 30u);
  EXPECT_EQ(rs.recv_elems, 10u);
  EXPECT_EQ(rs.bytes, 60u);
  EXPECT_EQ(rs.in_place_recv_offset, 20u);
  EXPECT_DOUBLE_EQ(rs.bus_factor, 2.0 / 3.0);

  EXPECT_TRUE(MakeLayout(CollKind::kScatter, 64, 2, 3, 0, 0).in_place_here);
  EXPECT_FALSE(MakeLayout(CollKind::kScatter, 64, 2, 3, 1, 0).in_place_here);
}

TEST(CollLayout, Alltoall) {
  const CollLayout l = MakeLayout(CollKind::kAlltoall, 1000, 8, 5, 3, 0);
  EXPECT_EQ(l.count, 25u);
  EXPECT_EQ(l.send_elems, 125u);
  EXPECT_EQ(l.recv_elems, 125u);
  EXPECT_EQ(l.bytes, 1000u);
  EXPECT_DOUBLE_EQ(l.bus_factor, 0.8);
}

TEST(CollLayout, SendrecvMovesOneBlockWithBusFactorOne) {
  for (int nranks : {1, 2, 3, 8, 11, 16}) {
    const CollLayout l = MakeLayout(CollKind::kSendrecv, 1003, 4, nranks, nranks - 1, 0);
    EXPECT_EQ(l.count, 250u) << nranks;  // the whole size: nccl-tests' count for sendrecv
    EXPECT_EQ(l.send_elems, 250u);
    EXPECT_EQ(l.recv_elems, 250u);
    EXPECT_EQ(l.bytes, 1000u);
    EXPECT_DOUBLE_EQ(l.bus_factor, 1.0) << nranks;  // busbw = algbw at every rank count
    EXPECT_FALSE(l.in_place_here);
  }
  EXPECT_TRUE(MovesData(CollKind::kSendrecv));
  EXPECT_FALSE(HasInPlace(CollKind::kSendrecv));
  EXPECT_FALSE(HasInPlace(CollKind::kBarrier));
  EXPECT_TRUE(HasInPlace(CollKind::kAlltoall));
  EXPECT_FALSE(IsReduction(CollKind::kSendrecv));
  EXPECT_FALSE(HasRoot(CollKind::kSendrecv));
}

// Every rank's next has it as its previous, and following next visits every rank once.
TEST(CollLayout, RingPeersAreAPermutationCycle) {
  for (int nranks : {1, 2, 3, 8, 11, 16}) {
    int r = 0;
    for (int step = 0; step < nranks; ++step) {
      ASSERT_GE(RingNext(r, nranks), 0);
      ASSERT_LT(RingNext(r, nranks), nranks);
      EXPECT_EQ(RingPrev(RingNext(r, nranks), nranks), r) << nranks;
      EXPECT_EQ(RingNext(r, nranks), (r + 1) % nranks);
      r = RingNext(r, nranks);
      EXPECT_EQ(r == 0, step + 1 == nranks) << nranks << ": back at 0 after " << step + 1 << " steps";
    }
    EXPECT_EQ(r, 0) << nranks;
    EXPECT_EQ(RingPrev(0, nranks), nranks - 1);
  }
}

TEST(CollLayout, SmallSizesGiveZeroCounts) {
  const CollLayout l = MakeLayout(CollKind::kAllgather, 8, 4, 4, 0, 0);
  EXPECT_EQ(l.count, 0u);
  EXPECT_EQ(l.bytes, 0u);
  EXPECT_EQ(MakeLayout(CollKind::kAllreduce, 3, 4, 2, 0, 0).count, 0u);
}

TEST(CollLayout, OneRankAndBarrier) {
  EXPECT_DOUBLE_EQ(MakeLayout(CollKind::kAllreduce, 64, 4, 1, 0, 0).bus_factor, 0.0);
  const CollLayout b = MakeLayout(CollKind::kBarrier, 64, 4, 4, 0, 0);
  EXPECT_EQ(b.bytes, 0u);
  EXPECT_FALSE(MovesData(CollKind::kBarrier));
}

TEST(CollLayout, Properties) {
  EXPECT_TRUE(IsReduction(CollKind::kReduceScatter));
  EXPECT_FALSE(IsReduction(CollKind::kAllgather));
  EXPECT_TRUE(HasRoot(CollKind::kScatter));
  EXPECT_FALSE(HasRoot(CollKind::kAlltoall));
  EXPECT_FALSE(ParseCollName("allgatherv").has_value());
}

}  // namespace
