// p2p_check_phases_streams.cc: the phases of device_p2p_check about streams
// and memory kinds: stream (device buffers with a stream: data produced on
// it before a send is what arrives, a receive lands after the work queued
// before it and before what is queued after), stream-host (host buffers
// with a stream are grUnsupported and post nothing) and pool
// (cudaMallocAsync memory is grUnsupported, saying why).
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/gpu/p2p_check_phases.h"
#include "tests/gpu/p2p_check_support.h"

namespace gpurun::p2p_check {
namespace {

constexpr uint8_t kMarked = 0x5C;  // what the stream phase's memset writes

void CUDART_CB Sleep50ms(void*) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

// Queues on the stream, behind a 50 ms host function, the writes that make
// `b` hold `x`'s data with its second quarter set to kMarked; returns that.
std::vector<uint8_t> ProduceOnStream(const Message& x, Buffer& b, Pinned& staging) {
  std::vector<uint8_t> data = x.data();
  std::copy(data.begin(), data.end(), staging.get());
  const size_t q = data.size() / 4;
  std::fill(data.begin() + q, data.begin() + 2 * q, kMarked);
  Cuda(cudaLaunchHostFunc(g.stream, Sleep50ms, nullptr), "cudaLaunchHostFunc");
  Cuda(cudaMemcpyAsync(b.data(), staging.get(), x.bytes(), cudaMemcpyHostToDevice, g.stream), "cudaMemcpyAsync");
  Cuda(cudaMemsetAsync(static_cast<uint8_t*>(b.data()) + q, kMarked, q, g.stream), "cudaMemsetAsync");
  return data;
}

// Queues on the stream, behind a 50 ms host function, a memset of `b` to
// poison: a receive on the stream must land after it.
void RepoisonOnStream(Buffer& b) {
  Cuda(cudaLaunchHostFunc(g.stream, Sleep50ms, nullptr), "cudaLaunchHostFunc");
  Cuda(cudaMemsetAsync(b.base(), kPoison, b.total(), g.stream), "cudaMemsetAsync");
}

// `b` as a cudaMemcpyAsync on the stream sees it.
std::vector<uint8_t> ReadOnStream(const Buffer& b) {
  Pinned out(b.total());
  Cuda(cudaMemcpyAsync(out.get(), b.base(), b.total(), cudaMemcpyDeviceToHost, g.stream), "cudaMemcpyAsync");
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
  return std::vector<uint8_t>(out.get(), out.get() + b.total());
}

grStream_t StreamFor(Mem m) { return m == Mem::kDevice ? static_cast<grStream_t>(g.stream) : GR_STREAM_HOST; }

// One message sent with (device: on the stream) grSend or grIsend+grWait.
void StreamSend(const Message& x, bool blocking) {
  Buffer b(x.smem, x.bytes());
  Pinned staging(x.bytes());
  std::vector<uint8_t> expected = x.data();
  if (x.smem == Mem::kDevice) {
    expected = ProduceOnStream(x, b, staging);
  } else {
    b.Write(expected);
  }
  const grStream_t stream = StreamFor(x.smem);
  if (blocking) {
    Ok(grSend(b.data(), x.m.count, x.m.type, x.dst, x.tag, g.world, stream), x.Describe() + ": grSend on a stream");
  } else {
    grRequest_t req = GR_REQUEST_NULL;
    Ok(grIsend(b.data(), x.m.count, x.m.type, x.dst, x.tag, g.world, stream, &req),
       x.Describe() + ": grIsend on a stream");
    Ok(grWait(&req, GR_STATUS_IGNORE), x.Describe() + ": grWait of a grIsend on a stream");
  }
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
  CheckSendBuffer(x, b, expected);
}

// What the receiver of `x` must get: the pattern, with the second quarter
// marked when the sender produced it on its stream (ProduceOnStream).
std::vector<uint8_t> Produced(const Message& x) {
  std::vector<uint8_t> data = x.data();
  if (x.smem == Mem::kDevice) {
    const size_t q = data.size() / 4;
    std::fill(data.begin() + q, data.begin() + 2 * q, kMarked);
  }
  return data;
}

void StreamRecv(const Message& x, bool blocking) {
  Buffer b(x.rmem, x.bytes());
  if (x.rmem == Mem::kDevice) RepoisonOnStream(b);
  const grStream_t stream = StreamFor(x.rmem);
  grStatus_t st{};
  grResult_t r;
  const char* call = blocking ? "grRecv on a stream" : "grIrecv on a stream, grWait";
  if (blocking) {
    r = grRecv(b.data(), x.cap, x.m.type, x.src, x.tag, g.world, &st, stream);
  } else {
    grRequest_t req = GR_REQUEST_NULL;
    Ok(grIrecv(b.data(), x.cap, x.m.type, x.src, x.tag, g.world, stream, &req), x.Describe() + ": grIrecv");
    r = grWait(&req, &st);
  }
  const std::vector<uint8_t> image = x.rmem == Mem::kDevice ? ReadOnStream(b) : b.Image();
  const std::string what = x.Describe() + ": " + call;
  if (r != grSuccess) Fatal(what + " failed: " + ErrorText(r));
  CheckStatus(what, st, grSuccess, x.src, x.tag, x.bytes(), x.m.type);
  const std::string diff = Differs(image, b, Produced(x));
  Expect(diff.empty(), what + ": receive buffer (read on the stream): " + diff);
}

// grSendrecv on the stream, device buffers on both sides: produced on the
// stream before, read on the stream after.
void StreamSendrecv(const Message& out, const Message& in) {
  Buffer sb(Mem::kDevice, out.bytes()), rb(Mem::kDevice, in.bytes());
  Pinned staging(out.bytes());
  const std::vector<uint8_t> sent = ProduceOnStream(out, sb, staging);
  RepoisonOnStream(rb);
  grStatus_t st{};
  const grResult_t r = grSendrecv(sb.data(), out.m.count, out.m.type, out.dst, out.tag, rb.data(), in.cap, in.m.type,
                                  in.src, in.tag, g.world, &st, g.stream);
  const std::vector<uint8_t> image = ReadOnStream(rb);
  const std::string what = in.Describe() + ": grSendrecv on a stream";
  if (r != grSuccess) Fatal(what + " failed: " + ErrorText(r));
  CheckStatus(what, st, grSuccess, in.src, in.tag, in.bytes(), in.m.type);
  const std::string diff = Differs(image, rb, Produced(in));
  Expect(diff.empty(), what + ": receive buffer (read on the stream): " + diff);
  CheckSendBuffer(out, sb, sent);
}

void ExpectUnsupported(grResult_t r, const std::string& what) {
  const std::string message = grGetLastErrorMessage();
  Expect(r == grUnsupported && !message.empty(),
         what + ": returned " + grGetErrorString(r) + ", expected grUnsupported with a message (\"" + message + "\")");
}

}  // namespace

void Streams() {
  static constexpr Msg kMsgs[] = {{grUint8, 7}, {grFloat32, 1024}, {grInt32, (1u << 18) + 3}};
  const int me = g.rank, partner = g.rank ^ 1;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (const Msg& m : kMsgs) {
        for (bool blocking : {true, false}) {
          if (partner < g.size) {
            for (int turn = 0; turn < 2; ++turn) {  // the lower rank sends first
              const bool sending = (turn == 0) == (me < partner);
              const int src = sending ? me : partner, dst = sending ? partner : me;
              const Message x = Make(s, r, m, src, dst, 5000 + index, 8, index);
              sending ? StreamSend(x, blocking) : StreamRecv(x, blocking);
            }
          }
          ++index;
        }
      }
    }
  }
  // Device to device with grSendrecv around the ring, and a rank to itself.
  const int right = (me + 1) % g.size, left = (me + g.size - 1) % g.size;
  for (const Msg& m : kMsgs) {
    const Message out = Make(Mem::kDevice, Mem::kDevice, m, me, right, 5000 + index, 8, index);
    const Message in = Make(Mem::kDevice, Mem::kDevice, m, left, me, 5000 + index, 8, index);
    StreamSendrecv(out, in);
    ++index;
    const Message self = Make(Mem::kDevice, Mem::kDevice, m, me, me, 5000 + index, 8, index);
    Buffer sb(Mem::kDevice, self.bytes());
    Pinned staging(self.bytes());
    const std::vector<uint8_t> sent = ProduceOnStream(self, sb, staging);
    grRequest_t req = GR_REQUEST_NULL;
    Ok(grIsend(sb.data(), self.m.count, self.m.type, me, self.tag, g.world, g.stream, &req),
       self.Describe() + ": grIsend to itself on a stream");
    StreamRecv(self, /*blocking=*/true);
    Ok(grWait(&req, GR_STATUS_IGNORE), self.Describe() + ": grWait of the grIsend to itself");
    CheckSendBuffer(self, sb, sent);
    ++index;
  }
}

// A host buffer with a stream is grUnsupported, posts nothing and leaves the
// request as it was: a message sent to itself afterwards is not swallowed.
void HostBufferWithStream() {
  const int me = g.rank, tag = 4500;
  std::vector<uint8_t> host(16, kPoison), host2(16, kPoison);
  grRequest_t req = GR_REQUEST_NULL;
  grStatus_t st{};
  const grStream_t s = g.stream;
  ExpectUnsupported(grSend(host.data(), 16, grByte, me, tag, g.world, s), "grSend of a host buffer on a stream");
  ExpectUnsupported(grIsend(host.data(), 16, grByte, me, tag, g.world, s, &req), "grIsend, host buffer, stream");
  Expect(req == GR_REQUEST_NULL, "grIsend of a host buffer on a stream set the request");
  ExpectUnsupported(grIrecv(host.data(), 16, grByte, me, tag, g.world, s, &req), "grIrecv, host buffer, stream");
  Expect(req == GR_REQUEST_NULL, "grIrecv of a host buffer on a stream set the request");
  ExpectUnsupported(grSendrecv(host.data(), 16, grByte, me, tag, host2.data(), 16, grByte, me, tag, g.world, &st, s),
                    "grSendrecv of host buffers on a stream");
  ExpectUnsupported(grRecv(host.data(), 16, grByte, me, tag, g.world, &st, s), "grRecv of a host buffer on a stream");
  int flag = 1;
  Ok(grIprobe(me, tag, g.world, &flag, &st), "grIprobe");
  Expect(flag == 0, "a rejected send on a stream left a message behind");
  const Message x = Make(Mem::kHost, Mem::kDevice, {grUint8, 16}, me, me, tag, 9, 0);
  const auto sb = SendBuffer(x);
  Ok(grIsend(sb->data(), 16, grByte, me, tag, g.world, GR_STREAM_HOST, &req), "grIsend");
  RecvOne(x);
  Ok(grWait(&req, GR_STATUS_IGNORE), "grWait");
  const std::vector<uint8_t> poison(16, kPoison);
  Expect(host == poison && host2 == poison, "a rejected call on a stream wrote a host buffer");
}

// Rank 0 sends cudaMallocAsync memory to rank 1: grUnsupported saying why,
// and nothing posted (rank 1's next receive from rank 0 gets the message after).
void Pool() {
  if (g.size < 2 || g.rank > 1) return;
  constexpr int kTag = 4600, kDoneTag = 4601;
  uint8_t byte = 1;
  if (g.rank == 1) {
    std::vector<uint8_t> buf(4096);  // room for a message that should not come
    grStatus_t st{};
    Ok(grRecv(buf.data(), buf.size(), grByte, 0, GR_ANY_TAG, g.world, &st, GR_STREAM_HOST), "grRecv");
    Expect(st.tag == kDoneTag, "a rejected send of pool memory posted a message (tag " + std::to_string(st.tag) + ")");
    return;
  }
  int pools = 0;
  Cuda(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, g.device), "cudaDeviceGetAttribute");
  if (pools == 0) {
    ++g.skipped;
  } else {
    void* p = nullptr;
    Cuda(cudaMallocAsync(&p, 4096, g.stream), "cudaMallocAsync");
    Cuda(cudaMemsetAsync(p, 7, 4096, g.stream), "cudaMemsetAsync");
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    auto says_why = [](const std::string& what) {
      std::string message = grGetLastErrorMessage();
      std::string lower = message;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      Expect(lower.find("ipc") != std::string::npos || lower.find("export") != std::string::npos,
             what + ": the message does not say CUDA IPC cannot export the memory: \"" + message + "\"");
    };
    grRequest_t req = GR_REQUEST_NULL;
    grResult_t r = grSend(p, 4096, grByte, 1, kTag, g.world, GR_STREAM_HOST);
    Expect(r == grUnsupported, std::string("grSend of cudaMallocAsync memory returned ") + grGetErrorString(r));
    if (r == grUnsupported) says_why("grSend of cudaMallocAsync memory");
    r = grIsend(p, 4096, grByte, 1, kTag, g.world, g.stream, &req);
    Expect(r == grUnsupported && req == GR_REQUEST_NULL,
           std::string("grIsend of cudaMallocAsync memory on a stream returned ") + grGetErrorString(r));
    if (r == grUnsupported) says_why("grIsend of cudaMallocAsync memory");
    Cuda(cudaFreeAsync(p, g.stream), "cudaFreeAsync");
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
  }
  Ok(grSend(&byte, 1, grByte, 1, kDoneTag, g.world, GR_STREAM_HOST), "grSend");
}

}  // namespace gpurun::p2p_check
