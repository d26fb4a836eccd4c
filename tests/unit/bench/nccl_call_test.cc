// gpurun-bench's NCCL dispatch with stand-in NCCL functions that record their
// arguments (no GPU, no libnccl): which function each case calls, with which
// pointers, counts and peers (in place too), the grouped send/recv
// collectives, error propagation; and the loader's error for a missing library.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/elem_codec.h"
#include "bench/nccl_call.h"
#include "bench/nccl_loader.h"

namespace {

struct Record {
  std::string fn;
  const void* send = nullptr;
  const void* recv = nullptr;
  size_t count = 0;
  int type = -1;
  int op = -1;
  int peer = -1;  // root or peer
};

std::vector<Record> calls;
ncclResult_t send_result = ncclSuccess;

ncclResult_t FakeAllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t,
                           cudaStream_t) {
  calls.push_back({"AllReduce", s, r, n, t, o, -1});
  return ncclSuccess;
}
ncclResult_t FakeBroadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t, cudaStream_t) {
  calls.push_back({"Broadcast", s, r, n, t, -1, root});
  return ncclSuccess;
}
ncclResult_t FakeReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o, int root, ncclComm_t,
                        cudaStream_t) {
  calls.push_back({"Reduce", s, r, n, t, o, root});
  return ncclSuccess;
}
ncclResult_t FakeAllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t, cudaStream_t) {
  calls.push_back({"AllGather", s, r, n, t, -1, -1});
  return ncclSuccess;
}
ncclResult_t FakeReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t o, ncclComm_t,
                               cudaStream_t) {
  calls.push_back({"ReduceScatter", s, r, n, t, o, -1});
  return ncclSuccess;
}
ncclResult_t FakeSend(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t, cudaStream_t) {
  calls.push_back({"Send", s, nullptr, n, t, -1, peer});
  return send_result;
}
ncclResult_t FakeRecv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t, cudaStream_t) {
  calls.push_back({"Recv", nullptr, r, n, t, -1, peer});
  return ncclSuccess;
}
ncclResult_t FakeGroupStart() {
  calls.push_back({"GroupStart"});
  return ncclSuccess;
}
ncclResult_t FakeGroupEnd() {
  calls.push_back({"GroupEnd"});
  return ncclSuccess;
}

NcclApi FakeApi() {
  NcclApi api;
  api.AllReduce = FakeAllReduce;
  api.Broadcast = FakeBroadcast;
  api.Reduce = FakeReduce;
  api.AllGather = FakeAllGather;
  api.ReduceScatter = FakeReduceScatter;
  api.Send = FakeSend;
  api.Recv = FakeRecv;
  api.GroupStart = FakeGroupStart;
  api.GroupEnd = FakeGroupEnd;
  return api;
}

class NcclCall : public ::testing::Test {
 protected:
  void SetUp() override {
    calls.clear();
    send_result = ncclSuccess;
  }

  // One rank's call of `kind` on 4 KiB of floats over `nranks`.
  ncclResult_t Call(CollKind kind, int nranks, int rank, int root, bool in_place) {
    c = CollCase{DataPattern{kind, grFloat32, grMax, root, nranks, 0},
                 MakeLayout(kind, 4096, ElemSize(grFloat32), nranks, rank, root), rank, in_place};
    return CallNccl(api, nullptr, nullptr, c, view);
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const Record& r : calls) names.push_back(r.fn);
    return names;
  }

  char send[4096] = {};
  char recv[4096] = {};
  BufferView view{send, recv};
  NcclApi api = FakeApi();
  CollCase c;
};

TEST_F(NcclCall, AllreduceOutOfPlacePassesTypeAndOp) {
  ASSERT_EQ(Call(CollKind::kAllreduce, 2, 0, 0, false), ncclSuccess);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].fn, "AllReduce");
  EXPECT_EQ(calls[0].send, send);
  EXPECT_EQ(calls[0].recv, recv);
  EXPECT_EQ(calls[0].count, 1024u);
  EXPECT_EQ(calls[0].type, ncclFloat32);
  EXPECT_EQ(calls[0].op, ncclMax);
}

TEST_F(NcclCall, InPlaceUsesNcclsInPlacePointers) {
  ASSERT_EQ(Call(CollKind::kAllgather, 4, 1, 0, true), ncclSuccess);
  EXPECT_EQ(calls[0].fn, "AllGather");
  EXPECT_EQ(calls[0].count, 256u);
  EXPECT_EQ(calls[0].send, recv + 256 * 4);  // this rank's block of the output
  EXPECT_EQ(calls[0].recv, recv);
  calls.clear();
  ASSERT_EQ(Call(CollKind::kReduceScatter, 4, 3, 0, true), ncclSuccess);
  EXPECT_EQ(calls[0].send, recv);
  EXPECT_EQ(calls[0].recv, recv + 3 * 256 * 4);
  calls.clear();
  ASSERT_EQ(Call(CollKind::kBcast, 4, 2, 1, true), ncclSuccess);
  EXPECT_EQ(calls[0].fn, "Broadcast");
  EXPECT_EQ(calls[0].send, calls[0].recv);
  EXPECT_EQ(calls[0].peer, 1);
}

TEST_F(NcclCall, ReduceGoesToTheRoot) {
  ASSERT_EQ(Call(CollKind::kReduce, 3, 0, 2, false), ncclSuccess);
  EXPECT_EQ(calls[0].fn, "Reduce");
  EXPECT_EQ(calls[0].peer, 2);
  EXPECT_EQ(calls[0].op, ncclMax);
}

TEST_F(NcclCall, AlltoallIsOneGroupOfSendsAndRecvs) {
  ASSERT_EQ(Call(CollKind::kAlltoall, 3, 1, 0, false), ncclSuccess);
  EXPECT_EQ(Names(),
            (std::vector<std::string>{"GroupStart", "Send", "Recv", "Send", "Recv", "Send", "Recv", "GroupEnd"}));
  const size_t block = 341 * 4;  // 4096 B / 3 ranks, whole floats
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(calls[1 + 2 * p].send, send + p * block);
    EXPECT_EQ(calls[2 + 2 * p].recv, recv + p * block);
    EXPECT_EQ(calls[1 + 2 * p].peer, p);
    EXPECT_EQ(calls[2 + 2 * p].count, 341u);
  }
}

TEST_F(NcclCall, GatherReceivesEveryBlockAtTheRootOnly) {
  ASSERT_EQ(Call(CollKind::kGather, 3, 0, 2, false), ncclSuccess);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Send", "GroupEnd"}));
  EXPECT_EQ(calls[1].peer, 2);
  calls.clear();
  ASSERT_EQ(Call(CollKind::kGather, 3, 2, 2, true), ncclSuccess);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Send", "Recv", "Recv", "Recv", "GroupEnd"}));
  EXPECT_EQ(calls[1].send, recv + 2 * 341 * 4);  // in place: the root's block of its output
  EXPECT_EQ(calls[4].recv, recv + 2 * 341 * 4);
}

TEST_F(NcclCall, ScatterSendsEveryBlockFromTheRootOnly) {
  ASSERT_EQ(Call(CollKind::kScatter, 3, 0, 0, false), ncclSuccess);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Send", "Send", "Send", "Recv", "GroupEnd"}));
  EXPECT_EQ(calls[3].send, send + 2 * 341 * 4);
  EXPECT_EQ(calls[4].peer, 0);
  calls.clear();
  ASSERT_EQ(Call(CollKind::kScatter, 3, 1, 0, false), ncclSuccess);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Recv", "GroupEnd"}));
}

TEST_F(NcclCall, SendrecvSendsToTheNextAndReceivesFromThePrevious) {
  ASSERT_EQ(Call(CollKind::kSendrecv, 3, 1, 0, false), ncclSuccess);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Send", "Recv", "GroupEnd"}));
  EXPECT_EQ(calls[1].send, send);
  EXPECT_EQ(calls[1].count, 1024u);  // the whole size, as nccl-tests' sendrecv
  EXPECT_EQ(calls[1].type, ncclFloat32);
  EXPECT_EQ(calls[1].peer, 2);
  EXPECT_EQ(calls[2].recv, recv);
  EXPECT_EQ(calls[2].count, 1024u);
  EXPECT_EQ(calls[2].peer, 0);
  calls.clear();
  ASSERT_EQ(Call(CollKind::kSendrecv, 3, 0, 0, false), ncclSuccess);  // the ring wraps
  EXPECT_EQ(calls[1].peer, 1);
  EXPECT_EQ(calls[2].peer, 2);
  EXPECT_STREQ(NcclApiName(c), "ncclSend/ncclRecv (sendrecv)");
}

TEST_F(NcclCall, AnErrorStopsTheGroupButEndsIt) {
  send_result = ncclInvalidArgument;
  EXPECT_EQ(Call(CollKind::kAlltoall, 3, 0, 0, false), ncclInvalidArgument);
  EXPECT_EQ(Names(), (std::vector<std::string>{"GroupStart", "Send", "GroupEnd"}));
}

TEST(NcclHas, NoBarrierAndNoInPlaceAlltoallOrSendrecv) {
  const CollLayout l{};
  EXPECT_FALSE(NcclHas(CollCase{DataPattern{CollKind::kBarrier}, l, 0, false}));
  EXPECT_FALSE(NcclHas(CollCase{DataPattern{CollKind::kAlltoall}, l, 0, true}));
  EXPECT_TRUE(NcclHas(CollCase{DataPattern{CollKind::kAlltoall}, l, 0, false}));
  EXPECT_FALSE(NcclHas(CollCase{DataPattern{CollKind::kSendrecv}, l, 0, true}));
  EXPECT_TRUE(NcclHas(CollCase{DataPattern{CollKind::kSendrecv}, l, 0, false}));
  for (CollKind kind : {CollKind::kAllreduce, CollKind::kBcast, CollKind::kReduce, CollKind::kAllgather,
                        CollKind::kReduceScatter, CollKind::kGather, CollKind::kScatter}) {
    EXPECT_TRUE(NcclHas(CollCase{DataPattern{kind}, l, 0, true})) << CollName(kind);
  }
  EXPECT_STREQ(NcclApiName(CollCase{DataPattern{CollKind::kAllreduce}, l, 0, false}), "ncclAllReduce");
}

TEST(NcclLoader, MissingLibraryQuotesDlerror) {
  const auto api = LoadNccl("/nonexistent/libnccl.so.2");
  ASSERT_FALSE(api.ok());
  const std::string& m = api.status().message();
  EXPECT_NE(m.find("dlopen(/nonexistent/libnccl.so.2)"), std::string::npos) << m;
  EXPECT_NE(m.find("No such file"), std::string::npos) << m;
}

TEST(NcclLoader, LibraryWithoutNcclNamesTheSymbol) {
  const auto api = LoadNccl("libm.so.6");
  ASSERT_FALSE(api.ok());
  EXPECT_NE(api.status().message().find("ncclGetVersion"), std::string::npos) << api.status().message();
}

// With an NCCL installed (the CUDA toolkit's here), every entry point binds
// and the version reads as NCCL_VERSION_CODE's text; no GPU is touched.
TEST(NcclLoader, InstalledNcclLoadsWithItsVersion) {
  const auto api = LoadNccl("libnccl.so.2");
  if (!api.ok()) GTEST_SKIP() << "no NCCL here: " << api.status().message();
  EXPECT_NE(api->GroupEnd, nullptr);
  EXPECT_NE(api->CommInitRank, nullptr);
  EXPECT_EQ(api->version.rfind("2.", 0), 0u) << api->version;
}

}  // namespace
