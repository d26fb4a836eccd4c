// Unit tests of the matrix's own checking machinery, so that a passing
// matrix means something: element encoding (round to nearest even for half
// and bfloat16), exactness of every op's inputs and results in every type,
// patterns that find a wrong element, guards that catch a write past either
// end, and a case runner that reports a wrong element, an overrun, a changed
// input, a write into an unused buffer and an unexpected rejection; and the
// rejection tables of host and device buffers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "tests/matrix/case_runner.h"
#include "tests/matrix/elem_codec.h"

namespace gpurun::matrix {
namespace {

uint16_t Bits16(grDataType_t type, double v) {
  uint16_t bits = 0;
  EncodeElem(type, v, &bits);
  return bits;
}

TEST(ElemCodec, HalfRoundsToNearestEven) {
  EXPECT_EQ(Bits16(grFloat16, 1.0), 0x3C00);
  EXPECT_EQ(Bits16(grFloat16, -2.0), 0xC000);
  EXPECT_EQ(Bits16(grFloat16, 1.0 / 3), 0x3555);
  EXPECT_EQ(Bits16(grFloat16, 65504.0), 0x7BFF);
  EXPECT_EQ(Bits16(grFloat16, 2049.0), 0x6800);                // tie: down to even 2048
  EXPECT_EQ(Bits16(grFloat16, 2051.0), 0x6802);                // tie: up to even 2052
  EXPECT_EQ(Bits16(grFloat16, std::ldexp(1.0, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(Bits16(grFloat16, -0.0), 0x8000);
}

TEST(ElemCodec, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(Bits16(grBfloat16, 1.0), 0x3F80);
  EXPECT_EQ(Bits16(grBfloat16, 1.0 / 3), 0x3EAB);
  EXPECT_EQ(Bits16(grBfloat16, 257.0), 0x4380);  // tie: down to even 256
  EXPECT_EQ(Bits16(grBfloat16, 259.0), 0x4382);  // tie: up to even 260
}

TEST(ElemCodec, DecodeInvertsEncodeForEveryType) {
  unsigned char buf[8];
  for (grDataType_t type : AllTypes()) {
    for (double v : {0.0, 1.0, 7.0, 100.0, 125.0}) {
      EncodeElem(type, v, buf);
      EXPECT_EQ(DecodeElem(type, buf), v) << TypeName(type);
    }
  }
}

// Every input and every exact result of every op on up to kMaxRanks ranks is
// representable in every type, so a byte-exact comparison is fair.
TEST(Pattern, InputsAndResultsAreExactInEveryType) {
  unsigned char buf[8];
  for (int nranks : {1, 2, 3, 4, 8, kMaxRanks}) {
    PatternCache cache(nranks);
    for (grDataType_t type : AllTypes()) {
      for (grRedOp_t op : AllOps()) {
        for (size_t i = 0; i < 1000; ++i) {
          double sum = 0, prod = 1, lo = INFINITY, hi = -INFINITY;
          for (int r = 0; r < nranks; ++r) {
            const double v = InputValue(KindOf(op), type, r, i);
            EncodeElem(type, v, buf);
            ASSERT_EQ(DecodeElem(type, buf), v) << TypeName(type);
            sum += v, prod *= v, lo = std::min(lo, v), hi = std::max(hi, v);
          }
          const double exact = op == grSum ? sum : op == grProd ? prod : op == grMin ? lo : op == grMax ? hi : sum;
          if (op != grAvg) {
            ASSERT_EQ(DecodeElem(type, cache.Reduced(type, op).At(i)), exact)
                << TypeName(type) << " " << OpName(op) << " nranks " << nranks << " i " << i;
          }
        }
      }
    }
  }
}

TEST(Pattern, AvgTruncatesIntegersAndRoundsFloats) {
  PatternCache cache(3);
  for (size_t i = 0; i < 9; ++i) {
    double sum = 0;
    for (int r = 0; r < 3; ++r) sum += InputValue(ValueKind::kSum, grInt32, r, i);
    int32_t got = 0;
    std::memcpy(&got, cache.Reduced(grInt32, grAvg).At(i), 4);
    EXPECT_EQ(got, static_cast<int32_t>(sum) / 3);
    float fgot = 0;
    std::memcpy(&fgot, cache.Reduced(grFloat32, grAvg).At(i), 4);
    EXPECT_EQ(fgot, static_cast<float>(sum) / 3.0f);
  }
}

TEST(Pattern, FindsTheFirstWrongElementAtAnyPhase) {
  PatternCache cache(2);
  const Pattern& p = cache.Input(ValueKind::kMove, grInt32, 5);
  std::vector<int32_t> buf(100000);
  p.Fill(buf.data(), buf.size(), 77);
  EXPECT_EQ(p.FirstMismatch(buf.data(), buf.size(), 77), Pattern::npos);
  EXPECT_NE(p.FirstMismatch(buf.data(), buf.size(), 78), Pattern::npos);
  buf[54321] ^= 1;
  EXPECT_EQ(p.FirstMismatch(buf.data(), buf.size(), 77), 54321u);
}

TEST(GuardedBuffer, CatchesWritesOnEitherSide) {
  for (size_t offset : AllOffsets()) {
    GuardedBuffer b;
    b.Prepare(100, offset);
    EXPECT_EQ(b.CheckGuards("x"), "");
    b.data()[-1] = 0;
    EXPECT_NE(b.CheckGuards("x"), "");
    b.Prepare(100, offset);
    b.data()[100] = 0;
    EXPECT_NE(b.CheckGuards("x"), "");
    b.Prepare(100, offset);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % GuardedBuffer::kAlign, offset);
  }
}

// A one-rank "allreduce" whose call is a fake that does what `act` says.
class FakeCall : public ::testing::Test {
 protected:
  FakeCall() : patterns_(1), reporter_(0, 0) {
    x_.patterns = &patterns_;
    c_.coll = Coll::kAllreduce;
    c_.type = grInt32;
    c_.op = grSum;
    c_.count = 1000;
    c_.bytes = 4000;
    c_.offset = 4;
  }
  uint64_t Failures(std::function<grResult_t(const void*, int32_t*)> act) {
    Plan p = PlanAllreduce(c_, x_);
    p.call = [act](const void* s, void* r) { return act(s, static_cast<int32_t*>(r)); };
    CaseRunner runner(x_, reporter_);
    const uint64_t before = reporter_.failures();
    runner.RunPlan(c_, p);
    return reporter_.failures() - before;
  }
  PatternCache patterns_;
  Reporter reporter_;
  PlanContext x_;
  Case c_;
};

TEST_F(FakeCall, ReportsEachKindOfWrongResult) {
  auto copy = [](const void* s, int32_t* r) {
    std::memcpy(r, s, 4000);
    return grSuccess;
  };
  EXPECT_EQ(Failures(copy), 0u);  // one rank: the sum is the input
  EXPECT_EQ(Failures([&](const void* s, int32_t* r) {
              copy(s, r);
              r[999] += 1;
              return grSuccess;
            }),
            1u);
  EXPECT_EQ(Failures([&](const void* s, int32_t* r) {
              copy(s, r);
              r[1000] = 0;  // one element past the end
              return grSuccess;
            }),
            1u);
  EXPECT_EQ(Failures([&](const void* s, int32_t* r) {
              copy(s, r);
              const_cast<int32_t*>(static_cast<const int32_t*>(s))[3] = 0;  // the input changed
              return grSuccess;
            }),
            1u);
  EXPECT_EQ(Failures([](const void*, int32_t*) { return grInvalidUsage; }), 1u);
  // Under GPURUN_ALGO=tree a reduce must be rejected: accepting it fails.
  c_.coll = Coll::kReduce;
  c_.algo = Algo::kTree;
  EXPECT_EQ(Failures(copy), 1u);
  EXPECT_EQ(reporter_.skipped(), 0u);
}

TEST(ExpectRejected, TreeOnlyForAllreduceAndBarrier) {
  for (Coll c : AllColls()) {
    for (Proto p : {Proto::kAuto, Proto::kLL, Proto::kLL128, Proto::kSimple}) {
      EXPECT_FALSE(ExpectRejected(c, Algo::kRing, p));
      EXPECT_FALSE(ExpectRejected(c, Algo::kAuto, p));
    }
  }
  EXPECT_FALSE(ExpectRejected(Coll::kAllreduce, Algo::kTree, Proto::kLL));
  EXPECT_TRUE(ExpectRejected(Coll::kAllgather, Algo::kTree, Proto::kLL));
  EXPECT_TRUE(ExpectRejected(Coll::kBcast, Algo::kTree, Proto::kSimple));
  EXPECT_FALSE(ExpectRejected(Coll::kAlltoall, Algo::kTree, Proto::kSimple));
  EXPECT_FALSE(ExpectRejected(Coll::kAllreduce, Algo::kOneShot, Proto::kLL128));
  EXPECT_TRUE(ExpectRejected(Coll::kReduce, Algo::kOneShot, Proto::kSimple));
  // Two-shot: allreduce (and barrier) with simple only; refused elsewhere.
  EXPECT_TRUE(ExpectRejected(Coll::kAllreduce, Algo::kTwoShot, Proto::kLL));
  EXPECT_TRUE(ExpectRejected(Coll::kBarrier, Algo::kTwoShot, Proto::kLL128));
  EXPECT_FALSE(ExpectRejected(Coll::kAllreduce, Algo::kTwoShot, Proto::kSimple));
  EXPECT_FALSE(ExpectRejected(Coll::kBarrier, Algo::kTwoShot, Proto::kAuto));
  EXPECT_TRUE(ExpectRejected(Coll::kAllgather, Algo::kTwoShot, Proto::kSimple));
  EXPECT_TRUE(ExpectRejected(Coll::kReduce, Algo::kTwoShot, Proto::kAuto));
  EXPECT_STREQ(RejectingVariable(Coll::kAllreduce, Algo::kTwoShot, Proto::kLL), "GPURUN_ALGO");
  EXPECT_FALSE(ExpectRejected(Coll::kAlltoall, Algo::kTwoShot, Proto::kLL));
}

TEST(ExpectRejectedOnDevice, TheRingForEveryGpuCollectiveAndTheTreeForAllreduce) {
  for (Coll c :
       {Coll::kAllreduce, Coll::kBcast, Coll::kBroadcast, Coll::kReduce, Coll::kAllgather, Coll::kReducescatter}) {
    EXPECT_FALSE(ExpectRejectedOnDevice(c, Algo::kAuto, Proto::kAuto));
    EXPECT_FALSE(ExpectRejectedOnDevice(c, Algo::kRing, Proto::kSimple));
    EXPECT_FALSE(ExpectRejectedOnDevice(c, Algo::kRing, Proto::kLL));
    EXPECT_FALSE(ExpectRejectedOnDevice(c, Algo::kAuto, Proto::kLL));
    EXPECT_FALSE(ExpectRejectedOnDevice(c, Algo::kRing, Proto::kLL128));
    if (c == Coll::kAllreduce) continue;
    EXPECT_TRUE(ExpectRejectedOnDevice(c, Algo::kTree, Proto::kSimple));
    EXPECT_STREQ(RejectingVariableOnDevice(c, Algo::kTree, Proto::kSimple), "GPURUN_ALGO");
  }
  // Allreduce runs the tree over every protocol (coll/device/tree_kernel.cuh).
  for (Proto p : {Proto::kAuto, Proto::kSimple, Proto::kLL, Proto::kLL128}) {
    EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, Algo::kTree, p));
  }
  // Allreduce also has oneshot/LL and twoshot/LL, and nothing else does.
  for (Algo direct : {Algo::kOneShot, Algo::kTwoShot}) {
    EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, direct, Proto::kLL));
    EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, direct, Proto::kAuto));
    EXPECT_TRUE(ExpectRejectedOnDevice(Coll::kAllreduce, direct, Proto::kLL128));
    EXPECT_STREQ(RejectingVariableOnDevice(Coll::kAllreduce, direct, Proto::kLL128), "GPURUN_PROTO");
    EXPECT_TRUE(ExpectRejectedOnDevice(Coll::kAllgather, direct, Proto::kLL));
    EXPECT_STREQ(RejectingVariableOnDevice(Coll::kAllgather, direct, Proto::kLL), "GPURUN_ALGO");
  }
  EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, Algo::kOneShot, Proto::kLL));
  EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, Algo::kOneShot, Proto::kAuto));
  EXPECT_FALSE(ExpectRejectedOnDevice(Coll::kAllreduce, Algo::kAuto, Proto::kLL));
  EXPECT_TRUE(ExpectRejectedOnDevice(Coll::kAllreduce, Algo::kOneShot, Proto::kSimple));
  EXPECT_STREQ(RejectingVariableOnDevice(Coll::kAllreduce, Algo::kOneShot, Proto::kSimple), "GPURUN_PROTO");
  EXPECT_TRUE(ExpectRejectedOnDevice(Coll::kBcast, Algo::kOneShot, Proto::kLL));
  EXPECT_STREQ(RejectingVariableOnDevice(Coll::kBcast, Algo::kOneShot, Proto::kLL), "GPURUN_ALGO");
  // The barrier keeps the host rules.
  EXPECT_EQ(ExpectRejectedOnDevice(Coll::kBarrier, Algo::kTree, Proto::kLL),
            ExpectRejected(Coll::kBarrier, Algo::kTree, Proto::kLL));
}

// The collectives lowered onto point-to-point run on device buffers too, over
// device point-to-point: no forced algorithm or protocol rejects them there,
// as on host buffers.
TEST(ExpectRejectedOnDevice, NeverForThePointToPointCollectives) {
  ASSERT_EQ(P2pColls().size(), 7u);
  for (Coll c : P2pColls()) {
    for (Algo a : {Algo::kAuto, Algo::kRing, Algo::kTree, Algo::kOneShot, Algo::kTwoShot}) {
      for (Proto p : {Proto::kAuto, Proto::kLL, Proto::kLL128, Proto::kSimple}) {
        EXPECT_FALSE(ExpectRejectedOnDevice(c, a, p)) << CollName(c) << " " << AlgoName(a) << " " << ProtoName(p);
        EXPECT_FALSE(ExpectRejected(c, a, p)) << CollName(c) << " " << AlgoName(a) << " " << ProtoName(p);
      }
    }
  }
}

// Every collective but the barrier is served on device buffers, by the ring
// path or by point-to-point, never both.
TEST(DeviceColls, RingAndPointToPointPartitionAllButTheBarrier) {
  std::vector<Coll> both = GpuRingColls();
  const std::vector<Coll> p2p = P2pColls();
  both.insert(both.end(), p2p.begin(), p2p.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(std::adjacent_find(both.begin(), both.end()), both.end()) << "in both lists";
  std::vector<Coll> all = AllColls();
  std::erase(all, Coll::kBarrier);
  EXPECT_EQ(both, all);
  for (Coll c : {Coll::kAllgatherv, Coll::kAlltoall, Coll::kAlltoallv, Coll::kGather, Coll::kGatherv, Coll::kScatter,
                 Coll::kScatterv}) {
    EXPECT_TRUE(IsP2pColl(c)) << CollName(c);
  }
  EXPECT_FALSE(IsP2pColl(Coll::kBarrier));
  EXPECT_FALSE(IsP2pColl(Coll::kAllgather));
}

}  // namespace
}  // namespace gpurun::matrix
