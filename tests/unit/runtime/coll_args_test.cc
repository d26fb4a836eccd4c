// The collective argument checks (coll_args.h) on a communicator of 4 ranks
// seen from rank 1: every rule, each with the key words of its message.
#include "runtime/coll_args.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace gpurun {
namespace {

constexpr size_t kMax = std::numeric_limits<size_t>::max();

grComm MakeComm(int rank, int size) {
  grComm c;
  c.rank = rank;
  c.size = size;
  c.world_ranks.resize(size);
  for (int i = 0; i < size; ++i) c.world_ranks[i] = i;
  return c;
}

// The status of a check, and whether its message holds every word of `words`.
template <typename T>
Status StatusOf(const StatusOr<T>& r) {
  return r.status();
}

testing::AssertionResult FailsWith(const Status& s, grResult_t code, std::vector<std::string> words) {
  if (s.ok()) return testing::AssertionFailure() << "passed";
  if (s.code() != code) return testing::AssertionFailure() << "wrong code: " << s.ToString();
  for (const std::string& w : words) {
    if (s.message().find(w) == std::string::npos) {
      return testing::AssertionFailure() << "\"" << w << "\" not in: " << s.message();
    }
  }
  return testing::AssertionSuccess();
}

#define EXPECT_INVALID(expr, ...) EXPECT_TRUE(FailsWith(StatusOf(expr), grInvalidArgument, {__VA_ARGS__}))

class CollArgsTest : public ::testing::Test {
 protected:
  grComm comm_ = MakeComm(1, 4);
  std::vector<float> a_ = std::vector<float>(64), b_ = std::vector<float>(64);
  float* a() { return a_.data(); }
  float* b() { return b_.data(); }
};

// A stream with host buffers (the GPU path takes device buffers before this check).
TEST_F(CollArgsTest, StreamMustBeHost) {
  EXPECT_TRUE(CheckCollStream(GR_STREAM_HOST).ok());
  EXPECT_TRUE(FailsWith(CheckCollStream(reinterpret_cast<grStream_t>(0x10)), grUnsupported,
                        {"stream orders device work", "host memory", "GR_STREAM_HOST"}));
}

TEST_F(CollArgsTest, TypeOpAndRootRanges) {
  EXPECT_INVALID(CheckAllreduce(comm_, a(), b(), 4, static_cast<grDataType_t>(10), grSum), "datatype 10",
                 "grDataType_t");
  EXPECT_INVALID(CheckAllreduce(comm_, a(), b(), 4, static_cast<grDataType_t>(-1), grSum), "datatype -1");
  EXPECT_INVALID(CheckAllreduce(comm_, a(), b(), 4, grFloat32, static_cast<grRedOp_t>(5)), "reduction operation 5",
                 "grRedOp_t");
  EXPECT_INVALID(CheckReduceScatter(comm_, a(), b(), 4, grFloat32, static_cast<grRedOp_t>(-2)),
                 "reduction operation -2");
  EXPECT_INVALID(CheckReduce(comm_, a(), b(), 4, grFloat32, grSum, 4), "root 4", "[0, 4)");
  EXPECT_INVALID(CheckBcast(comm_, a(), 4, grFloat32, -1), "root -1");
  EXPECT_INVALID(CheckBroadcast(comm_, a(), b(), 4, grFloat32, 9), "root 9");
  EXPECT_INVALID(CheckGather(comm_, a(), b(), 4, grFloat32, 4), "root 4");
  EXPECT_INVALID(CheckGatherv(comm_, a(), 4, b(), nullptr, nullptr, grFloat32, 7), "root 7");
  EXPECT_INVALID(CheckScatter(comm_, a(), b(), 4, grFloat32, -3), "root -3");
  EXPECT_INVALID(CheckScatterv(comm_, a(), nullptr, nullptr, b(), 4, grFloat32, 4), "root 4");
  EXPECT_INVALID(CheckAlltoall(comm_, a(), b(), 4, static_cast<grDataType_t>(11)), "datatype 11");
  for (int op = 0; op < grNumOps; ++op) {
    auto call = CheckAllreduce(comm_, a(), b(), 4, grInt64, static_cast<grRedOp_t>(op));
    ASSERT_TRUE(call.ok());
    EXPECT_EQ(static_cast<int>(call->op), op);
    EXPECT_EQ(call->type, coll::DataType::kInt64);
  }
}

TEST_F(CollArgsTest, NullBuffersOnlyWithNothingToMove) {
  EXPECT_INVALID(CheckAllreduce(comm_, nullptr, b(), 4, grFloat32, grSum), "sendbuf is null", "count is 4");
  EXPECT_INVALID(CheckAllreduce(comm_, a(), nullptr, 4, grFloat32, grSum), "recvbuf is null");
  EXPECT_INVALID(CheckBcast(comm_, nullptr, 1, grInt8, 0), "buf is null");
  EXPECT_INVALID(CheckAllgather(comm_, a(), nullptr, 2, grFloat32), "recvbuf is null", "count is 8");
  EXPECT_INVALID(CheckAlltoall(comm_, a(), nullptr, 2, grFloat32), "recvbuf is null");
  EXPECT_TRUE(CheckAllreduce(comm_, nullptr, nullptr, 0, grFloat32, grSum).ok());
  EXPECT_TRUE(CheckAllgather(comm_, nullptr, nullptr, 0, grFloat32).ok());
  EXPECT_TRUE(CheckAlltoall(comm_, nullptr, nullptr, 0, grFloat32).ok());
  EXPECT_TRUE(CheckGather(comm_, nullptr, nullptr, 0, grFloat32, 0).ok());
  // Where gpurun.h says a buffer is unused, null is fine (rank 1 is not the root).
  EXPECT_TRUE(CheckReduce(comm_, a(), nullptr, 4, grFloat32, grSum, 0).ok());
  EXPECT_TRUE(CheckBroadcast(comm_, nullptr, b(), 4, grFloat32, 0).ok());
  EXPECT_TRUE(CheckGather(comm_, a(), nullptr, 4, grFloat32, 0).ok());
  EXPECT_TRUE(CheckScatter(comm_, nullptr, b(), 4, grFloat32, 0).ok());
  EXPECT_TRUE(CheckGatherv(comm_, a(), 4, nullptr, nullptr, nullptr, grFloat32, 0).ok());
  EXPECT_TRUE(CheckScatterv(comm_, nullptr, nullptr, nullptr, b(), 4, grFloat32, 0).ok());
  // ... but not at the root.
  EXPECT_INVALID(CheckReduce(comm_, a(), nullptr, 4, grFloat32, grSum, 1), "recvbuf at the root is null");
  EXPECT_INVALID(CheckBroadcast(comm_, nullptr, b(), 4, grFloat32, 1), "sendbuf at the root is null");
  EXPECT_INVALID(CheckGather(comm_, a(), nullptr, 4, grFloat32, 1), "recvbuf at the root is null");
  EXPECT_INVALID(CheckScatter(comm_, nullptr, b(), 4, grFloat32, 1), "sendbuf at the root is null");
}

TEST_F(CollArgsTest, CountOverflow) {
  EXPECT_INVALID(CheckAllreduce(comm_, a(), b(), kMax / 2, grFloat32, grSum), "overflows the byte count");
  EXPECT_INVALID(CheckBcast(comm_, a(), kMax / 4 + 1, grInt32, 0), "overflows");
  // count * size of the communicator.
  EXPECT_INVALID(CheckAllgather(comm_, a(), b(), kMax / 3, grInt8), "sendcount times the communicator's size",
                 "overflows size_t");
  EXPECT_INVALID(CheckReduceScatter(comm_, a(), b(), kMax / 3, grInt8, grSum), "recvcount times");
  EXPECT_INVALID(CheckAlltoall(comm_, a(), b(), kMax / 3, grInt8), "count times the communicator's size");
  EXPECT_INVALID(CheckGather(comm_, a(), b(), kMax / 3, grInt8, 1), "count times");
  // count * size fits, times the element size does not.
  EXPECT_INVALID(CheckAllgather(comm_, a(), b(), kMax / 8, grInt64), "overflows the byte count");
  // A block's end.
  const size_t counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, kMax, 3};
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 1, b(), counts, displs, grFloat32), "block of rank 2", "displs[2]",
                 "overflows");
  const size_t big[4] = {0, 1, 0, kMax / 4};
  const size_t d0[4] = {0, 0, 0, 1};
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 1, b(), big, d0, grFloat32), "block of rank 3", "overflows");
}

TEST_F(CollArgsTest, InPlaceRulesAndPartialOverlaps) {
  float* buf = a();
  // allreduce / reduce / broadcast: in place is sendbuf == recvbuf.
  auto ar = CheckAllreduce(comm_, buf, buf, 8, grFloat32, grSum);
  ASSERT_TRUE(ar.ok());
  EXPECT_EQ(ar->send, ar->recv);
  EXPECT_INVALID(CheckAllreduce(comm_, buf + 1, buf, 8, grFloat32, grSum), "overlaps", "not in place",
                 "sendbuf == recvbuf");
  EXPECT_INVALID(CheckReduce(comm_, buf, buf + 3, 8, grFloat32, grSum, 1), "overlaps");
  EXPECT_INVALID(CheckBroadcast(comm_, buf + 2, buf, 8, grFloat32, 1), "in place at the root");
  EXPECT_TRUE(CheckAllreduce(comm_, buf, buf + 8, 8, grFloat32, grSum).ok());  // adjacent: no overlap
  // allgather: sendbuf == recvbuf + rank * sendcount; == recvbuf is a partial overlap on rank 1.
  EXPECT_TRUE(CheckAllgather(comm_, buf + 4, buf, 4, grFloat32).ok());
  EXPECT_INVALID(CheckAllgather(comm_, buf, buf, 4, grFloat32), "overlaps", "recvbuf + rank * sendcount");
  EXPECT_INVALID(CheckAllgather(comm_, buf + 5, buf, 4, grFloat32), "overlaps");
  // reducescatter: recvbuf == sendbuf + rank * recvcount.
  EXPECT_TRUE(CheckReduceScatter(comm_, buf, buf + 4, 4, grFloat32, grSum).ok());
  EXPECT_INVALID(CheckReduceScatter(comm_, buf, buf, 4, grFloat32, grSum), "recvbuf == sendbuf + rank * recvcount");
  // alltoall: sendbuf == recvbuf.
  auto aa = CheckAlltoall(comm_, buf, buf, 4, grFloat32);
  ASSERT_TRUE(aa.ok());
  EXPECT_TRUE(aa->in_place);
  EXPECT_INVALID(CheckAlltoall(comm_, buf + 4, buf, 4, grFloat32), "overlaps");
  // gather / scatter at the root (rank 1 as root).
  EXPECT_TRUE(CheckGather(comm_, buf + 4, buf, 4, grFloat32, 1).ok());
  EXPECT_INVALID(CheckGather(comm_, buf, buf, 4, grFloat32, 1), "recvbuf + root * count");
  EXPECT_TRUE(CheckScatter(comm_, buf, buf + 4, 4, grFloat32, 1).ok());
  EXPECT_INVALID(CheckScatter(comm_, buf, buf + 2, 4, grFloat32, 1), "recvbuf == sendbuf + root * count");
  // ... and off the root the receive buffer of gather is not looked at.
  EXPECT_TRUE(CheckGather(comm_, buf, buf, 4, grFloat32, 0).ok());
  // The v calls.
  const size_t counts[4] = {2, 3, 1, 2}, displs[4] = {0, 2, 5, 6};
  EXPECT_TRUE(CheckAllgatherv(comm_, buf + 2, 3, buf, counts, displs, grFloat32).ok());
  EXPECT_INVALID(CheckAllgatherv(comm_, buf + 1, 3, buf, counts, displs, grFloat32), "recvbuf + displs[rank]");
  EXPECT_TRUE(CheckGatherv(comm_, buf + 2, 3, buf, counts, displs, grFloat32, 1).ok());
  EXPECT_INVALID(CheckGatherv(comm_, buf, 3, buf, counts, displs, grFloat32, 1), "recvbuf + displs[root]");
  EXPECT_TRUE(CheckScatterv(comm_, buf, counts, displs, buf + 2, 3, grFloat32, 1).ok());
  EXPECT_INVALID(CheckScatterv(comm_, buf, counts, displs, buf + 3, 3, grFloat32, 1), "sendbuf + displs[root]");
  auto av = CheckAlltoallv(comm_, buf, nullptr, nullptr, buf, counts, displs, grFloat32);
  ASSERT_TRUE(av.ok()) << av.status().ToString();  // in place: the send arrays are ignored
  EXPECT_TRUE(av->in_place);
  EXPECT_INVALID(CheckAlltoallv(comm_, buf + 1, counts, displs, buf, counts, displs, grFloat32), "overlaps",
                 "sendbuf == recvbuf");
}

TEST_F(CollArgsTest, PerRankArrays) {
  const size_t counts[4] = {2, 3, 1, 2}, displs[4] = {0, 2, 5, 6};
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 3, b(), nullptr, displs, grFloat32), "recvcounts is null");
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 3, b(), counts, nullptr, grFloat32), "displs is null");
  EXPECT_INVALID(CheckAlltoallv(comm_, a(), nullptr, displs, b(), counts, displs, grFloat32), "sendcounts is null");
  EXPECT_INVALID(CheckAlltoallv(comm_, a(), counts, nullptr, b(), counts, displs, grFloat32), "sdispls is null");
  EXPECT_INVALID(CheckAlltoallv(comm_, a(), counts, displs, b(), counts, nullptr, grFloat32), "rdispls is null");
  EXPECT_INVALID(CheckGatherv(comm_, a(), 3, b(), nullptr, displs, grFloat32, 1), "recvcounts is null");
  EXPECT_INVALID(CheckScatterv(comm_, a(), counts, nullptr, b(), 3, grFloat32, 1), "displs is null");
  // Own block: one size on both sides.
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 2, b(), counts, displs, grFloat32), "recvcounts[rank] (3)",
                 "sendcount (2)");
  EXPECT_INVALID(CheckGatherv(comm_, a(), 2, b(), counts, displs, grFloat32, 1), "recvcounts[root]");
  EXPECT_INVALID(CheckScatterv(comm_, a(), counts, displs, b(), 1, grFloat32, 1), "sendcounts[root]");
  const size_t other[4] = {2, 1, 1, 2};
  EXPECT_INVALID(CheckAlltoallv(comm_, a(), other, displs, b(), counts, displs, grFloat32), "sendcounts[rank] (1)",
                 "recvcounts[rank] (3)");
  // Received blocks may not overlap; sent ones may.
  const size_t overlapping[4] = {0, 2, 4, 6};  // block 1 = [2, 5) overlaps block 2 = [4, 5)
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 3, b(), counts, overlapping, grFloat32), "blocks of ranks 1 and 2",
                 "overlap");
  EXPECT_INVALID(CheckGatherv(comm_, a(), 3, b(), counts, overlapping, grFloat32, 1), "ranks 1 and 2");
  EXPECT_TRUE(CheckScatterv(comm_, a(), counts, overlapping, b(), 3, grFloat32, 1).ok());
  EXPECT_TRUE(CheckAlltoallv(comm_, a(), counts, overlapping, b(), counts, displs, grFloat32).ok());
  // Empty blocks overlap nothing; a null buffer needs empty blocks everywhere.
  const size_t zeros[4] = {0, 0, 0, 0};
  EXPECT_TRUE(CheckAllgatherv(comm_, nullptr, 0, nullptr, zeros, displs, grFloat32).ok());
  EXPECT_INVALID(CheckAllgatherv(comm_, a(), 3, nullptr, counts, displs, grFloat32), "recvbuf is null",
                 "span 32 bytes");
  EXPECT_INVALID(CheckScatterv(comm_, nullptr, counts, displs, b(), 3, grFloat32, 1), "sendbuf at the root is null");
}

TEST_F(CollArgsTest, CallsCarryWhatTheExecutorNeeds) {
  auto bc = CheckBcast(comm_, a(), 5, grBfloat16, 2);
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->func, coll::Func::kBroadcast);
  EXPECT_EQ(bc->send, a());
  EXPECT_EQ(bc->recv, a());
  EXPECT_EQ(bc->count, 5u);
  EXPECT_EQ(bc->type, coll::DataType::kBfloat16);
  EXPECT_EQ(bc->root, 2);
  auto rd = CheckReduce(comm_, a(), b(), 3, grUint8, grMax, 0);
  ASSERT_TRUE(rd.ok());
  EXPECT_EQ(rd->func, coll::Func::kReduce);
  EXPECT_EQ(rd->recv, nullptr);  // off the root the executor gets no receive buffer
  EXPECT_EQ(rd->op, coll::RedOp::kMax);
  auto ag = CheckAllgather(comm_, a(), b(), 7, grFloat64);
  ASSERT_TRUE(ag.ok());
  EXPECT_EQ(ag->func, coll::Func::kAllGather);
  EXPECT_EQ(ag->count, 7u);  // per rank
  auto rs = CheckReduceScatter(comm_, a(), b(), 2, grInt32, grAvg);
  ASSERT_TRUE(rs.ok());
  EXPECT_EQ(rs->func, coll::Func::kReduceScatter);
  EXPECT_EQ(rs->op, coll::RedOp::kAvg);
  auto g = CheckGather(comm_, a(), b(), 3, grInt32, 1);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->elem_size, 4u);
  EXPECT_EQ(g->recv_blocks.Displ(2), 6u);
  EXPECT_EQ(g->recv_blocks.Count(3), 3u);
}

}  // namespace
}  // namespace gpurun
