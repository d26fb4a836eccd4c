// p2p_check_phases_streams.cc: the phases of device_p2p_check about streams
// and memory kinds: stream (stream-ordered send/receive of device buffers:
// data produced on the stream before a send is what arrives, a receive
// lands after the work queued before it and before what is queued after,
// messages larger than the pair's FIFOs, more room than the message,
// grSendrecv around the ring and to itself), stream-errors (what a
// stream-ordered call refuses, truncated and mismatched messages),
// stream-host (host buffers with a stream are grUnsupported and post
// nothing) and pool (cudaMallocAsync memory: grUnsupported without a
// stream on one host, saying why, a host copy to another host; moved on a
// stream).
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

// One message sent on the stream with grSend or grIsend (which must leave a
// null request: the stream completes it).
void StreamSend(const Message& x, bool blocking) {
  Buffer b(Mem::kDevice, x.bytes());
  Pinned staging(x.bytes());
  const std::vector<uint8_t> expected = ProduceOnStream(x, b, staging);
  if (blocking) {
    Ok(grSend(b.data(), x.m.count, x.m.type, x.dst, x.tag, g.world, g.stream), x.Describe() + ": grSend on a stream");
  } else {
    grRequest_t req = reinterpret_cast<grRequest_t>(&staging);  // must be overwritten
    Ok(grIsend(b.data(), x.m.count, x.m.type, x.dst, x.tag, g.world, g.stream, &req),
       x.Describe() + ": grIsend on a stream");
    Expect(req == GR_REQUEST_NULL, x.Describe() + ": grIsend on a stream left a request");
  }
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
  CheckSendBuffer(x, b, expected);
}

// What the receiver of `x` must get: the pattern with the second quarter
// marked (the sender produced it on its stream: ProduceOnStream).
std::vector<uint8_t> Produced(const Message& x) {
  std::vector<uint8_t> data = x.data();
  const size_t q = data.size() / 4;
  std::fill(data.begin() + q, data.begin() + 2 * q, kMarked);
  return data;
}

// One message received on the stream into room for x.cap elements; grRecv
// fills the status when the stream gets past it.
void StreamRecv(const Message& x, bool blocking) {
  Buffer b(Mem::kDevice, x.cap * ElemBytes(x.m.type));
  RepoisonOnStream(b);
  grStatus_t st{};
  st.error = grInternalError;  // the stream must overwrite it
  const char* call = blocking ? "grRecv on a stream" : "grIrecv on a stream";
  const std::string what = x.Describe() + ": " + call;
  if (blocking) {
    Ok(grRecv(b.data(), x.cap, x.m.type, x.src, x.tag, g.world, &st, g.stream), what);
  } else {
    grRequest_t req = reinterpret_cast<grRequest_t>(&st);
    Ok(grIrecv(b.data(), x.cap, x.m.type, x.src, x.tag, g.world, g.stream, &req), what);
    Expect(req == GR_REQUEST_NULL, what + " left a request");
  }
  const std::vector<uint8_t> image = ReadOnStream(b);
  if (blocking) CheckStatus(what, st, grSuccess, x.src, x.tag, x.bytes(), x.m.type);
  const std::string diff = Differs(image, b, Produced(x));
  Expect(diff.empty(), what + ": receive buffer (read on the stream): " + diff);
}

// grSendrecv on the stream: produced on the stream before, read on it after.
void StreamSendrecv(const Message& out, const Message& in) {
  Buffer sb(Mem::kDevice, out.bytes()), rb(Mem::kDevice, in.bytes());
  Pinned staging(out.bytes());
  const std::vector<uint8_t> sent = ProduceOnStream(out, sb, staging);
  RepoisonOnStream(rb);
  grStatus_t st{};
  const std::string what = in.Describe() + ": grSendrecv on a stream";
  Ok(grSendrecv(sb.data(), out.m.count, out.m.type, out.dst, out.tag, rb.data(), in.cap, in.m.type, in.src, in.tag,
                g.world, &st, g.stream),
     what);
  const std::vector<uint8_t> image = ReadOnStream(rb);
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

// 136 MiB + 12: more than a connection's FIFOs hold (64 x 2 MiB by default), so the
// sender must wait for the receiver to drain them.
constexpr Msg kStreamMsgs[] = {
    {grUint8, 0}, {grUint8, 7}, {grFloat32, 1024}, {grInt32, (1u << 18) + 3}, {grInt32, (34u << 20) + 3}};

}  // namespace

void Streams() {
  const int me = g.rank, partner = g.rank ^ 1;
  int index = 0;
  if (partner < g.size) {
    for (const Msg& m : kStreamMsgs) {
      for (bool blocking : {true, false}) {
        for (int room : {0, 5}) {
          for (int turn = 0; turn < 2; ++turn) {  // the lower rank sends first
            const bool sending = (turn == 0) == (me < partner);
            const int src = sending ? me : partner, dst = sending ? partner : me;
            Message x = Make(Mem::kDevice, Mem::kDevice, m, src, dst, 5000 + index, 8, index);
            x.cap = m.count + static_cast<size_t>(room);
            sending ? StreamSend(x, blocking) : StreamRecv(x, blocking);
          }
          ++index;
        }
      }
    }
  }
  // grSendrecv around the ring (two peers per call when there are more than
  // two ranks), and a rank to itself.
  const int right = (me + 1) % g.size, left = (me + g.size - 1) % g.size;
  for (const Msg& m : kStreamMsgs) {
    const Message out = Make(Mem::kDevice, Mem::kDevice, m, me, right, 5000 + index, 8, index);
    const Message in = Make(Mem::kDevice, Mem::kDevice, m, left, me, 5000 + index, 8, index);
    StreamSendrecv(out, in);
    ++index;
    const Message self = Make(Mem::kDevice, Mem::kDevice, m, me, me, 5000 + index, 8, index);
    StreamSendrecv(self, self);
    ++index;
  }
}

// What a stream-ordered call refuses (nothing is enqueued) and what a
// receive reports later: a send to itself alone, GR_ANY_SOURCE, and a
// truncated or mismatched message (in the status; without a status, by the
// next stream-ordered call, which then does nothing).
void StreamErrors() {
  const int me = g.rank, partner = g.rank ^ 1;
  Buffer a(Mem::kDevice, 4096), b(Mem::kDevice, 4096);
  grRequest_t req = GR_REQUEST_NULL;
  ExpectUnsupported(grIsend(a.data(), 16, grByte, me, 1, g.world, g.stream, &req),
                    "grIsend to itself alone on a stream");
  ExpectUnsupported(grRecv(a.data(), 16, grByte, GR_ANY_SOURCE, 1, g.world, GR_STATUS_IGNORE, g.stream),
                    "grRecv from GR_ANY_SOURCE on a stream");
  if (partner >= g.size) return;
  const bool sender = me < partner;
  const Message big =
      Make(Mem::kDevice, Mem::kDevice, {grInt32, 1000}, sender ? me : partner, sender ? partner : me, 6000, 12, 0);
  Pinned staging(big.bytes());
  if (sender) {
    // Three messages: truncated, mismatched, truncated again (no status).
    const std::vector<uint8_t> data = ProduceOnStream(big, a, staging);
    for (int tag : {6000, 6001, 6000}) {
      Ok(grSend(a.data(), big.m.count, big.m.type, partner, tag, g.world, g.stream), "grSend on a stream");
    }
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    return;
  }
  // Truncated: room for 600 of the 1000 int32; the first 600 land, nothing after.
  Buffer small(Mem::kDevice, 600 * 4);
  RepoisonOnStream(small);
  grStatus_t st{};
  Ok(grRecv(small.data(), 600, grInt32, partner, 6000, g.world, &st, g.stream), "grRecv of a truncated message");
  std::vector<uint8_t> image = ReadOnStream(small);
  Expect(st.error == grTruncated && st.bytes == 600 * 4 && st.source == partner && st.tag == 6000,
         "a truncated stream-ordered receive: status error=" + std::to_string(st.error) +
             " bytes=" + std::to_string(st.bytes));
  std::vector<uint8_t> head = Produced(big);
  head.resize(600 * 4);
  std::string diff = Differs(image, small, head);
  Expect(diff.empty(), "a truncated stream-ordered receive: " + diff);
  // Mismatched tag: dropped, the buffer untouched, the status says so.
  RepoisonOnStream(b);
  st = grStatus_t{};
  Ok(grRecv(b.data(), 1000, grInt32, partner, 6000, g.world, &st, g.stream), "grRecv of a mismatched message");
  image = ReadOnStream(b);
  Expect(st.error == grInvalidUsage && st.bytes == 0 && st.tag == 6001,
         "a stream-ordered receive of a message with another tag: status error=" + std::to_string(st.error) +
             " tag=" + std::to_string(st.tag));
  diff = Differs(image, b, {});
  Expect(diff.empty(), "a stream-ordered receive of a message with another tag wrote: " + diff);
  // Truncated without a status: the next stream-ordered call says so and does nothing.
  Ok(grRecv(small.data(), 600, grInt32, partner, 6000, g.world, GR_STATUS_IGNORE, g.stream),
     "grRecv of a truncated message without a status");
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
  const grResult_t r =
      grSendrecv(a.data(), 4, grByte, me, 1, b.data(), 4, grByte, me, 1, g.world, GR_STATUS_IGNORE, g.stream);
  const std::string message = grGetLastErrorMessage();
  Expect(r == grTruncated && message.find("2400") != std::string::npos,
         "the call after a truncated stream-ordered receive without a status returned " +
             std::string(grGetErrorString(r)) + " (\"" + message + "\")");
  Ok(grSendrecv(a.data(), 4, grByte, me, 1, b.data(), 4, grByte, me, 1, g.world, GR_STATUS_IGNORE, g.stream),
     "a stream-ordered call after the reported error");
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
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

// Rank 0 sends cudaMallocAsync memory to rank 1: without a stream, on one
// host, grUnsupported saying why (CUDA IPC cannot export it) and nothing
// posted (rank 1's next receive from rank 0 gets the message after); across
// hosts it moves as a host copy (nothing is exported); on a stream it moves
// (the stream path copies through its own FIFOs, nothing is exported).
void Pool() {
  if (g.size < 2 || g.rank > 1) return;
  constexpr int kTag = 4600, kDoneTag = 4601, kStreamTag = 4602;
  int pools = 0;
  Cuda(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, g.device), "cudaDeviceGetAttribute");
  grPeerInfo_t zero{}, one{};
  Ok(grCommPeerInfo(g.world, 0, &zero), "grCommPeerInfo");
  Ok(grCommPeerInfo(g.world, 1, &one), "grCommPeerInfo");
  const bool apart = zero.node_id != one.node_id;
  uint8_t byte = 1;
  if (g.rank == 1) {
    std::vector<uint8_t> buf(4096);  // room for a message that should not come
    grStatus_t st{};
    if (apart && pools != 0) {
      Ok(grRecv(buf.data(), buf.size(), grByte, 0, GR_ANY_TAG, g.world, &st, GR_STREAM_HOST), "grRecv");
      Expect(st.tag == kTag && st.bytes == 4096 && buf == std::vector<uint8_t>(4096, 7),
             "pool memory sent to another host did not arrive whole (tag " + std::to_string(st.tag) + ")");
    }
    Ok(grRecv(buf.data(), buf.size(), grByte, 0, GR_ANY_TAG, g.world, &st, GR_STREAM_HOST), "grRecv");
    Expect(st.tag == kDoneTag, "a rejected send of pool memory posted a message (tag " + std::to_string(st.tag) + ")");
    if (pools == 0) return;
    Buffer b(Mem::kDevice, 4096);
    RepoisonOnStream(b);
    Ok(grRecv(b.data(), 4096, grByte, 0, kStreamTag, g.world, &st, g.stream), "grRecv on a stream from pool memory");
    const std::vector<uint8_t> image = ReadOnStream(b);
    Expect(Differs(image, b, std::vector<uint8_t>(4096, 7)).empty() && st.error == grSuccess && st.bytes == 4096,
           "a stream-ordered message from cudaMallocAsync memory did not arrive whole");
    return;
  }
  void* p = nullptr;
  if (pools == 0) {
    ++g.skipped;
  } else {
    Cuda(cudaMallocAsync(&p, 4096, g.stream), "cudaMallocAsync");
    Cuda(cudaMemsetAsync(p, 7, 4096, g.stream), "cudaMemsetAsync");
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    std::string message;
    const grResult_t r = grSend(p, 4096, grByte, 1, kTag, g.world, GR_STREAM_HOST);
    message = grGetLastErrorMessage();
    if (apart) {
      Expect(r == grSuccess, std::string("grSend of cudaMallocAsync memory to another host returned ") +
                                 grGetErrorString(r) + ": " + message);
    } else {
      Expect(r == grUnsupported, std::string("grSend of cudaMallocAsync memory returned ") + grGetErrorString(r));
      std::string lower = message;
      std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
      Expect(lower.find("ipc") != std::string::npos || lower.find("export") != std::string::npos,
             "grSend of cudaMallocAsync memory: the message does not say CUDA IPC cannot export the memory: \"" +
                 message + "\"");
    }
  }
  Ok(grSend(&byte, 1, grByte, 1, kDoneTag, g.world, GR_STREAM_HOST), "grSend");
  if (p == nullptr) return;
  Ok(grSend(p, 4096, grByte, 1, kStreamTag, g.world, g.stream), "grSend of cudaMallocAsync memory on a stream");
  Cuda(cudaFreeAsync(p, g.stream), "cudaFreeAsync");
  Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
}

}  // namespace gpurun::p2p_check
