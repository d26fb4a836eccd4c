// The engine's device-memory rendezvous (device_transfer.h) without a GPU: a
// FakeDevice calls an arena of host memory "device memory", exports by
// address and pulls with memcpy, and counts what the engine asked of it.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "engine_test_util.h"
#include "fake_network.h"
#include "p2p/device_transfer.h"

namespace gpurun::p2p::testing {
namespace {

struct DeviceLog {
  std::vector<std::byte> arena = std::vector<std::byte>(1 << 20);
  int exports = 0, pulls = 0, copies = 0;
  size_t pulled_bytes = 0;
  Status export_result;  // what Export answers
  Status pull_result;    // what Pull answers
  Status copy_result;    // what Copy answers
  bool InArena(const void* p) const {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= arena.data() && b < arena.data() + arena.size();
  }
};

class FakeDevice final : public DeviceTransfer {
 public:
  explicit FakeDevice(DeviceLog* log) : log_(log) {}
  bool IsDevice(const void* p) override { return log_->InArena(p); }
  Status Export(const void* data, size_t, DeviceExport* out) override {
    ++log_->exports;
    if (!log_->export_result.ok()) return log_->export_result;
    out->address = reinterpret_cast<uint64_t>(data);
    return OkStatus();
  }
  Status Pull(int, const DeviceExport& from, void* dst, size_t bytes) override {
    ++log_->pulls;
    log_->pulled_bytes += bytes;
    if (!log_->pull_result.ok()) return log_->pull_result;
    std::memcpy(dst, reinterpret_cast<const void*>(from.address), bytes);
    return OkStatus();
  }
  Status Copy(void* dst, const void* src, size_t bytes) override {
    ++log_->copies;
    if (!log_->copy_result.ok()) return log_->copy_result;
    std::memcpy(dst, src, bytes);
    return OkStatus();
  }

 private:
  DeviceLog* log_;
};

using EngineDeviceTest = ParamsFixture;

std::unique_ptr<Engine> DeviceEngine(FakeNetwork& net, int rank, DeviceLog* log) {
  auto e = net.MakeEngine(rank);
  e->SetDeviceTransfer(std::make_unique<FakeDevice>(log));
  return e;
}

// Rank 1 sends from "device" memory; rank 0 receives into "device" memory. The
// send completes only once the receiver has pulled the data.
TEST_F(EngineDeviceTest, DeviceToDeviceCompletesAfterThePull) {
  FakeNetwork net(2);
  DeviceLog log;
  auto r0 = DeviceEngine(net, 0, &log);
  auto r1 = DeviceEngine(net, 1, &log);
  auto* src = reinterpret_cast<int*>(log.arena.data());
  auto* dst = reinterpret_cast<int*>(log.arena.data() + 4096);
  std::iota(src, src + 100, 7);
  Request* send = Start(*r1, SendTo(1, 0, 3, src, 100 * sizeof(int)));
  bool done = true;
  ASSERT_TRUE(r1->Test(send, &done, nullptr).ok());
  EXPECT_FALSE(done) << "a device send completed before anyone received it";
  grStatus_t st;
  ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 3, dst, 100 * sizeof(int))), &st).ok());
  EXPECT_EQ(st.bytes, 100 * sizeof(int));
  EXPECT_EQ(st.source, 1);
  ASSERT_TRUE(r1->Wait(send, nullptr).ok());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(dst[i], 7 + i) << i;
  EXPECT_EQ(log.exports, 1);
  EXPECT_EQ(log.pulls, 1);
  EXPECT_EQ(log.copies, 0);
}

// Host messages into a device buffer go through Copy, eager or rendezvous
// (staged through host memory), posted before or after they arrive.
TEST_F(EngineDeviceTest, HostMessagesIntoDeviceBuffersAreCopiedIn) {
  for (size_t eager_limit : {size_t{1} << 20, size_t{8}}) {
    FakeNetwork net(2, {.eager_limit = eager_limit, .async_fetch = true});
    DeviceLog log;
    auto r0 = DeviceEngine(net, 0, &log);
    auto r1 = DeviceEngine(net, 1, &log);
    std::vector<int> host(64);
    std::iota(host.begin(), host.end(), 100);
    auto* dst = reinterpret_cast<int*>(log.arena.data());
    Request* posted = Start(*r0, RecvFrom(1, 1, dst, 64 * sizeof(int)));
    Request* s1 = Start(*r1, SendTo(1, 0, 1, host.data(), 64 * sizeof(int)));
    Request* s2 = Start(*r1, SendTo(1, 0, 2, host.data(), 64 * sizeof(int)));
    ASSERT_TRUE(r0->Wait(posted, nullptr).ok());
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 2, dst + 64, 64 * sizeof(int))), nullptr).ok());
    ASSERT_TRUE(r1->Wait(s1, nullptr).ok());
    ASSERT_TRUE(r1->Wait(s2, nullptr).ok());
    for (int i = 0; i < 64; ++i) {
      ASSERT_EQ(dst[i], 100 + i) << "eager limit " << eager_limit << " element " << i;
      ASSERT_EQ(dst[64 + i], 100 + i) << "eager limit " << eager_limit << " element " << i;
    }
    EXPECT_EQ(log.copies, 2) << "eager limit " << eager_limit;
    EXPECT_EQ(log.pulls, 0);
  }
}

// A device message into a smaller host buffer: truncated, nothing written
// past the end, only what fits is pulled; the send itself succeeds. A probe
// reports the data's size, not the rendezvous message's.
TEST_F(EngineDeviceTest, ProbeSizeAndTruncationAreTheDatas) {
  FakeNetwork net(2);
  DeviceLog log;
  auto r0 = DeviceEngine(net, 0, &log);
  auto r1 = DeviceEngine(net, 1, &log);
  std::memset(log.arena.data(), 0x5a, 1000);
  Request* send = Start(*r1, SendTo(1, 0, 9, log.arena.data(), 1000));
  grStatus_t st;
  bool found = false;
  ASSERT_TRUE(r0->Probe(0, GR_ANY_SOURCE, GR_ANY_TAG, true, &found, &st).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(st.bytes, 1000u);
  std::vector<std::byte> host(600, std::byte{0});
  Status got = r0->Wait(Start(*r0, RecvFrom(1, 9, host.data(), 500)), &st);
  EXPECT_EQ(got.code(), grTruncated) << got.ToString();
  EXPECT_EQ(st.bytes, 500u);
  EXPECT_EQ(log.pulled_bytes, 500u);
  for (size_t i = 0; i < 500; ++i) ASSERT_EQ(host[i], std::byte{0x5a}) << i;
  for (size_t i = 500; i < 600; ++i) ASSERT_EQ(host[i], std::byte{0}) << "written past the end at " << i;
  EXPECT_TRUE(r1->Wait(send, nullptr).ok());
}

// Wildcards match device messages like any other; order per (source, tag) holds
// across device and host messages.
TEST_F(EngineDeviceTest, DeviceAndHostMessagesKeepTheirOrder) {
  FakeNetwork net(2);
  DeviceLog log;
  auto r0 = DeviceEngine(net, 0, &log);
  auto r1 = DeviceEngine(net, 1, &log);
  auto* dev = reinterpret_cast<int*>(log.arena.data());
  std::vector<int> host(10);
  std::vector<Request*> sends;
  for (int i = 0; i < 10; ++i) {
    const bool on_device = i % 2 == 0;
    int* buf = on_device ? dev + i : host.data() + i;
    *buf = i;
    sends.push_back(Start(*r1, SendTo(1, 0, 4, buf, sizeof(int))));
  }
  for (int i = 0; i < 10; ++i) {
    int in = -1;
    grStatus_t st;
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(GR_ANY_SOURCE, GR_ANY_TAG, &in, sizeof in)), &st).ok());
    EXPECT_EQ(in, i) << "message " << i << " overtaken";
    EXPECT_EQ(st.tag, 4);
  }
  ASSERT_TRUE(r1->WaitAll(sends, nullptr).ok());
  EXPECT_EQ(log.pulls, 5);
}

// A send to itself from device memory (the loopback wire).
TEST_F(EngineDeviceTest, SelfSendFromDeviceMemory) {
  FakeNetwork net(1);
  DeviceLog log;
  auto e = DeviceEngine(net, 0, &log);
  auto* src = reinterpret_cast<double*>(log.arena.data());
  src[0] = 2.5;
  double in = 0;
  Request* send = Start(*e, SendTo(0, 0, 0, src, sizeof(double)));
  ASSERT_TRUE(e->Recv(RecvFrom(0, 0, &in, sizeof in), nullptr).ok());
  ASSERT_TRUE(e->Wait(send, nullptr).ok());
  EXPECT_EQ(in, 2.5);
  EXPECT_EQ(log.pulls, 1);
}

// What cannot be done is an error on the side that finds it, and the other
// side learns of it instead of waiting forever.
TEST_F(EngineDeviceTest, FailuresReachBothSides) {
  {
    FakeNetwork net(2);
    DeviceLog log;
    auto r1 = DeviceEngine(net, 1, &log);
    log.export_result = Unsupported("not exportable");
    StatusOr<Request*> r = r1->Isend(SendTo(1, 0, 0, log.arena.data(), 16));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), grUnsupported);
    EXPECT_NE(r.status().message().find("not exportable"), std::string::npos) << r.status().ToString();
  }
  {
    FakeNetwork net(2);
    DeviceLog log;
    auto r0 = DeviceEngine(net, 0, &log);
    auto r1 = DeviceEngine(net, 1, &log);
    log.pull_result = SystemError("copy engine unhappy");
    Request* send = Start(*r1, SendTo(1, 0, 0, log.arena.data(), 16));
    std::vector<std::byte> in(16);
    Status got = r0->Wait(Start(*r0, RecvFrom(1, 0, in.data(), in.size())), nullptr);
    EXPECT_EQ(got.code(), grSystemError) << got.ToString();
    Status sent = r1->Wait(send, nullptr);
    EXPECT_EQ(sent.code(), grSystemError) << sent.ToString();
    EXPECT_NE(sent.message().find("world rank 0"), std::string::npos) << sent.ToString();
  }
  {
    // A host copy that cannot be made fails the send at the call, naming the wire.
    FakeNetwork net(2, {.device_rendezvous = false});
    DeviceLog log;
    auto r1 = DeviceEngine(net, 1, &log);
    log.copy_result = SystemError("copy engine unhappy");
    StatusOr<Request*> r = r1->Isend(SendTo(1, 0, 0, log.arena.data(), 16));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), grSystemError);
    EXPECT_NE(r.status().message().find("fake wire"), std::string::npos) << r.status().ToString();
  }
}

// A wire that moves host memory only (UCX, across hosts): a GPU send buffer
// goes as a host copy made at the call, eager or by the wire's rendezvous,
// into host or GPU receive buffers; nothing is exported or pulled, and a
// change to the buffer after the call does not travel. Issend stays
// synchronous.
TEST_F(EngineDeviceTest, HostOnlyWiresCarryGpuSendsAsHostCopies) {
  for (size_t eager : {size_t{1} << 20, size_t{64}}) {
    FakeNetwork net(2, {.eager_limit = eager, .device_rendezvous = false});
    DeviceLog log;
    auto r0 = DeviceEngine(net, 0, &log);
    auto r1 = DeviceEngine(net, 1, &log);
    auto* src = reinterpret_cast<int*>(log.arena.data());
    auto* dst = reinterpret_cast<int*>(log.arena.data() + 8192);
    std::iota(src, src + 100, 11);
    Request* send = Start(*r1, SendTo(1, 0, 5, src, 100 * sizeof(int)));
    std::fill(src, src + 100, -1);  // after the call: not what the message carries
    grStatus_t st;
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 5, dst, 100 * sizeof(int))), &st).ok()) << "eager " << eager;
    ASSERT_TRUE(r1->Wait(send, nullptr).ok());
    EXPECT_EQ(st.bytes, 100 * sizeof(int));
    for (int i = 0; i < 100; ++i) ASSERT_EQ(dst[i], 11 + i) << "element " << i << ", eager " << eager;
    std::vector<int> host(100);
    std::iota(src, src + 100, 3);
    Request* again = Start(*r1, SendTo(1, 0, 6, src, 100 * sizeof(int)));
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 6, host.data(), host.size() * sizeof(int))), nullptr).ok());
    ASSERT_TRUE(r1->Wait(again, nullptr).ok());
    for (int i = 0; i < 100; ++i) ASSERT_EQ(host[i], 3 + i) << "element " << i << ", eager " << eager;
    EXPECT_EQ(log.exports, 0);
    EXPECT_EQ(log.pulls, 0);
    EXPECT_EQ(log.copies, 3) << "two send copies and one into the device receive buffer";

    StatusOr<Request*> sync = r1->Issend(SendTo(1, 0, 7, src, 100 * sizeof(int)));
    ASSERT_TRUE(sync.ok()) << sync.status().ToString();
    bool done = true;
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(r1->Test(*sync, &done, nullptr).ok());
    EXPECT_FALSE(done) << "a synchronous send completed before a receive matched, eager " << eager;
    ASSERT_TRUE(r0->Wait(Start(*r0, RecvFrom(1, 7, host.data(), host.size() * sizeof(int))), nullptr).ok());
    ASSERT_TRUE(r1->Wait(*sync, nullptr).ok());
    EXPECT_EQ(host[99], 102);
  }
}

// The receiver dies before pulling: the device send fails naming it.
TEST_F(EngineDeviceTest, ReceiverDeathFailsTheWaitingSend) {
  FakeNetwork net(2);
  DeviceLog log;
  auto r1 = DeviceEngine(net, 1, &log);
  Request* send = Start(*r1, SendTo(1, 0, 0, log.arena.data(), 16));
  net.Kill(0, RemoteError("rank 0 died"));
  Status sent = r1->Wait(send, nullptr);
  EXPECT_EQ(sent.code(), grRemoteError) << sent.ToString();
}

}  // namespace
}  // namespace gpurun::p2p::testing
