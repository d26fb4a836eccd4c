// device_p2p_check: the rank program of the device-buffer point-to-point
// checks (gpu_p2p_test.cc). Run it under `gpurun -n N`; each rank uses CUDA
// device GPURUN_LOCAL_RANK modulo the device count (ranks may share a GPU).
// Every message is a pattern unique to its phase, sender, receiver and
// index; every receive buffer is poisoned, with kGuard poisoned bytes after
// its end (and a lead before it in some), and is checked byte for byte after
// the call: the data written, poison everywhere else. Each phase runs every
// mix of host and device memory on the sending and the receiving side:
//   blocking    grSend/grRecv between partners rank^1, rank^2, ...: 0, 1 and
//               7 B, 7 int32, 4 KiB, 1 MiB + 3 int32, 64 MiB (rank^1 only);
//               result, status, grGetCount, send buffer unchanged
//   self        a rank to itself: Isend+Recv, Irecv+Send, Sendrecv
//   sendrecv    grSendrecv around the ring
//   inflight    12 messages to every rank (itself too) in flight at once with
//               different tags, Irecvs posted in descending tag order (half
//               before the Isends), completed by grWaitany
//   order       rank 0 receives all with GR_ANY_SOURCE and GR_ANY_TAG: each
//               sender's messages (large and small, device and host, three
//               tags) arrive in the order sent
//   truncation  a receive buffer too small: grTruncated in the result and the
//               status, status bytes = bytes written, nothing past the end
//   probe       grProbe/grIprobe report the whole message (also before a
//               truncating receive); grIprobe finds nothing unsent
//   stream      device buffers with a stream: data produced on it (behind a
//               50 ms host function) just before grSend/grIsend/grSendrecv is
//               what arrives; a receive buffer re-poisoned on it just before
//               grRecv/grIrecv is not overwritten by that; a cudaMemcpyAsync
//               on it after the receive sees the data. Host buffers with a
//               stream are grUnsupported and post nothing
//   pool        a send from cudaMallocAsync memory (CUDA IPC cannot export it)
//               is grUnsupported, with a message saying so, and posts nothing
// Prints one line per failure, "FAIL rank=R <phase>: <what>", and rank 0 the
// summary "device_p2p_check: C checks, F failures, S skipped on N ranks".
// Exit status 0 when no rank failed, 1 when one did (a call that fails
// where it must not aborts the job: its ranks may be out of step), 2 on a
// usage or setup error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpurun/gpurun.h"

namespace {

constexpr uint8_t kPoison = 0xA5;
constexpr uint8_t kMarked = 0x5C;  // what the stream phase's memset writes
constexpr size_t kGuard = 64;
constexpr uint64_t kMaxPrinted = 200;  // failure lines per rank

enum class Mem { kHost, kDevice };
constexpr Mem kMems[] = {Mem::kHost, Mem::kDevice};
const char* MemName(Mem m) { return m == Mem::kHost ? "host" : "device"; }

struct Rank {
  int rank = 0;
  int size = 1;
  int device = 0;
  int devices = 0;
  grComm_t world = GR_COMM_NULL;
  cudaStream_t stream = nullptr;
  const char* phase = "setup";
  uint64_t checks = 0, failures = 0, skipped = 0;
};
Rank g;

// ---- reporting -------------------------------------------------------------

// The last error's message, then the code's name (the message is only valid
// until the next gpurun call).
std::string ErrorText(grResult_t r) {
  const std::string message = grGetLastErrorMessage();
  return std::string(grGetErrorString(r)) + ": " + message;
}

void Fail(const std::string& what) {
  if (++g.failures <= kMaxPrinted) {
    std::printf("FAIL rank=%d %s: %s\n", g.rank, g.phase, what.c_str());
    std::fflush(stdout);
  }
}

bool Expect(bool ok, const std::string& what) {
  ++g.checks;
  if (!ok) Fail(what);
  return ok;
}

[[noreturn]] void Fatal(const std::string& what) {
  std::printf("FAIL rank=%d %s: %s (aborting the job)\n", g.rank, g.phase, what.c_str());
  std::fflush(stdout);
  grAbort(g.world, 1);
  std::abort();
}

void Cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Fatal(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

// A call that must succeed: anything else may leave the ranks out of step.
void Ok(grResult_t r, const std::string& what) {
  ++g.checks;
  if (r != grSuccess) Fatal(what + " failed: " + ErrorText(r));
}

// ---- data ------------------------------------------------------------------

size_t ElemBytes(grDataType_t t) {
  static constexpr size_t kSizes[grNumDataTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return kSizes[t];
}

const char* TypeName(grDataType_t t) {
  static constexpr const char* kNames[grNumDataTypes] = {"int8",   "uint8", "int32", "uint32", "int64",
                                                         "uint64", "half",  "float", "double", "bfloat16"};
  return kNames[t];
}

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::vector<uint8_t> Pattern(uint64_t salt, size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t w = Mix(salt * 0x100000001B3ull + i);
    std::memcpy(v.data() + i, &w, std::min<size_t>(8, n - i));
  }
  return v;
}

uint64_t Salt(int phase, int src, int dst, int index) {
  return (uint64_t(phase) << 48) ^ (uint64_t(src) << 36) ^ (uint64_t(dst) << 24) ^ uint64_t(index);
}

// Pinned host memory (for the stream's copies).
class Pinned {
 public:
  explicit Pinned(size_t bytes) { Cuda(cudaMallocHost(&p_, std::max<size_t>(bytes, 1)), "cudaMallocHost"); }
  ~Pinned() { cudaFreeHost(p_); }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  uint8_t* get() const { return static_cast<uint8_t*>(p_); }

 private:
  void* p_ = nullptr;
};

// `bytes` of message space at `lead` bytes into a malloc'd or cudaMalloc'd
// allocation, with kGuard bytes after it; poisoned when made. Freed with the
// object, so the next buffer often gets the same address (a stale IPC
// mapping shows as wrong data).
class Buffer {
 public:
  Buffer(Mem mem, size_t bytes, size_t lead = 0) : mem_(mem), bytes_(bytes), lead_(lead) {
    if (mem == Mem::kDevice) {
      Cuda(cudaMalloc(&base_, total()), "cudaMalloc");
    } else if ((base_ = std::malloc(total())) == nullptr) {
      Fatal("malloc of " + std::to_string(total()) + " bytes");
    }
    Write({});
  }
  ~Buffer() { mem_ == Mem::kDevice ? static_cast<void>(cudaFree(base_)) : std::free(base_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return static_cast<uint8_t*>(base_) + lead_; }
  void* base() const { return base_; }
  size_t bytes() const { return bytes_; }
  size_t lead() const { return lead_; }
  size_t total() const { return lead_ + bytes_ + kGuard; }

  // Poison everywhere, then `head` at the start of the data; landed on return.
  void Write(const std::vector<uint8_t>& head) {
    std::vector<uint8_t> image(total(), kPoison);
    std::copy(head.begin(), head.end(), image.begin() + lead_);
    if (mem_ == Mem::kHost) {
      std::memcpy(base_, image.data(), total());
      return;
    }
    Cuda(cudaMemcpy(base_, image.data(), total(), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
    Cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }

  // The whole allocation, as it is now.
  std::vector<uint8_t> Image() const {
    std::vector<uint8_t> image(total());
    if (mem_ == Mem::kHost) {
      std::memcpy(image.data(), base_, total());
    } else {
      Cuda(cudaMemcpy(image.data(), base_, total(), cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
    }
    return image;
  }

 private:
  Mem mem_;
  size_t bytes_;
  size_t lead_;
  void* base_ = nullptr;
};

// "" when `image` (of `b`) holds `expected` at the start of the data and
// poison everywhere else (lead, the rest of the data, guard); else the first
// wrong byte.
std::string Differs(const std::vector<uint8_t>& image, const Buffer& b, const std::vector<uint8_t>& expected) {
  auto at = [&](size_t i) {
    const long long rel = static_cast<long long>(i) - static_cast<long long>(b.lead());
    const char* where = i < b.lead() ? "in the lead" : i < b.lead() + b.bytes() ? "in the data" : "in the guard";
    char text[160];
    std::snprintf(text, sizeof(text), "byte %lld (%s, %zu written): got 0x%02x expected 0x%02x", rel, where,
                  expected.size(), image[i],
                  i >= b.lead() && rel < static_cast<long long>(expected.size()) ? expected[rel] : kPoison);
    return std::string(text);
  };
  const auto not_poison = [](uint8_t v) { return v != kPoison; };
  const auto lead_end = image.begin() + b.lead();
  if (auto it = std::find_if(image.begin(), lead_end, not_poison); it != lead_end) return at(it - image.begin());
  const auto [got, want] = std::mismatch(lead_end, lead_end + expected.size(), expected.begin());
  if (want != expected.end()) return at(got - image.begin());
  if (auto it = std::find_if(lead_end + expected.size(), image.end(), not_poison); it != image.end()) {
    return at(it - image.begin());
  }
  return "";
}

// ---- messages --------------------------------------------------------------

struct Msg {
  grDataType_t type;
  size_t count;
};

// One message: its memories, size, receive count, ends, tag and contents.
struct Message {
  Mem smem = Mem::kHost;
  Mem rmem = Mem::kHost;
  Msg m{grUint8, 0};
  size_t cap = 0;  // the receive's count: m.count, or less to truncate
  int src = 0, dst = 0, tag = 0;
  uint64_t salt = 0;

  size_t bytes() const { return m.count * ElemBytes(m.type); }
  std::vector<uint8_t> data() const { return Pattern(salt, bytes()); }
  std::string Describe() const {
    char text[200];
    std::snprintf(text, sizeof(text), "%s->%s %s x%zu (%zu B, receive count %zu) %d->%d tag %d", MemName(smem),
                  MemName(rmem), TypeName(m.type), m.count, bytes(), cap, src, dst, tag);
    return text;
  }
};

Message Make(Mem smem, Mem rmem, Msg m, int src, int dst, int tag, int phase, int index) {
  Message x;
  x.smem = smem;
  x.rmem = rmem;
  x.m = m;
  x.cap = m.count;
  x.src = src;
  x.dst = dst;
  x.tag = tag;
  x.salt = Salt(phase, src, dst, index);
  return x;
}

std::unique_ptr<Buffer> SendBuffer(const Message& x, size_t lead = 0) {
  auto b = std::make_unique<Buffer>(x.smem, x.bytes(), lead);
  b->Write(x.data());
  return b;
}

std::unique_ptr<Buffer> RecvBuffer(const Message& x, size_t lead = 0) {
  return std::make_unique<Buffer>(x.rmem, x.cap * ElemBytes(x.m.type), lead);
}

void CheckSendBuffer(const Message& x, const Buffer& b, const std::vector<uint8_t>& expected) {
  const std::string diff = Differs(b.Image(), b, expected);
  Expect(diff.empty(), x.Describe() + ": send buffer changed: " + diff);
}

void CheckStatus(const std::string& what, const grStatus_t& st, grResult_t error, int source, int tag, size_t bytes,
                 grDataType_t type) {
  const size_t elems = bytes / ElemBytes(type);
  char text[240];
  std::snprintf(text, sizeof(text), "status source=%d tag=%d error=%d bytes=%zu count=%zu, expected %d %d %d %zu %zu",
                st.source, st.tag, static_cast<int>(st.error), st.bytes, st.count, source, tag, static_cast<int>(error),
                bytes, elems);
  Expect(st.source == source && st.tag == tag && st.error == error && st.bytes == bytes && st.count == elems,
         what + ": " + text);
  size_t count = SIZE_MAX;
  const grResult_t r = grGetCount(&st, type, &count);
  Expect(r == grSuccess && count == elems, what + ": grGetCount gave " + std::to_string(count) + " (" +
                                               grGetErrorString(r) + "), expected " + std::to_string(elems));
}

// A completed receive of `x` into `b` that returned `r`: result and status
// (grTruncated when x.cap < the message), then the buffer (`image`: as read
// after the call; null: read it now).
void JudgeRecv(const Message& x, const char* call, grResult_t r, const grStatus_t& st, const Buffer& b,
               const std::vector<uint8_t>* image = nullptr) {
  const std::string what = x.Describe() + ": " + call;
  if (r != grSuccess && r != grTruncated) Fatal(what + " failed: " + ErrorText(r));
  const grResult_t want = x.cap < x.m.count ? grTruncated : grSuccess;
  Expect(r == want, what + " returned " + grGetErrorString(r) + ", expected " + grGetErrorString(want));
  const size_t written = std::min(x.cap, x.m.count) * ElemBytes(x.m.type);
  CheckStatus(what, st, want, x.src, x.tag, written, x.m.type);
  std::vector<uint8_t> expected = x.data();
  expected.resize(written);
  const std::string diff = image != nullptr ? Differs(*image, b, expected) : Differs(b.Image(), b, expected);
  Expect(diff.empty(), what + ": receive buffer: " + diff);
}

// Sends `x` from a fresh buffer (blocking) and checks the buffer is unchanged.
void SendOne(const Message& x, size_t lead = 0) {
  const auto b = SendBuffer(x, lead);
  Ok(grSend(b->data(), x.m.count, x.m.type, x.dst, x.tag, g.world, GR_STREAM_HOST), x.Describe() + ": grSend");
  CheckSendBuffer(x, *b, x.data());
}

void RecvOne(const Message& x, size_t lead = 0) {
  const auto b = RecvBuffer(x, lead);
  grStatus_t st{};
  const grResult_t r = grRecv(b->data(), x.cap, x.m.type, x.src, x.tag, g.world, &st, GR_STREAM_HOST);
  JudgeRecv(x, "grRecv", r, st, *b);
}

// ---- phases ----------------------------------------------------------------

const Msg kSizes[] = {{grUint8, 0},        {grUint8, 1},      {grUint8, 7},
                      {grInt32, 7},        {grFloat32, 1024}, {grInt32, (1u << 18) + 3},
                      {grUint8, 64u << 20}};
constexpr size_t kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);
constexpr size_t kHuge = kNumSizes - 1;  // 64 MiB: between rank^1 partners only

size_t LeadFor(int index) { return index % 3 == 0 ? 0 : index % 3 == 1 ? 12 : 4100; }

void Blocking() {
  for (int bit = 1; bit < g.size; bit <<= 1) {
    const int partner = g.rank ^ bit;
    if (partner >= g.size) continue;
    int index = 0;
    for (Mem s : kMems) {
      for (Mem r : kMems) {
        for (size_t k = 0; k < kNumSizes; ++k, ++index) {
          if (k == kHuge && bit != 1) continue;
          for (int turn = 0; turn < 2; ++turn) {  // the lower rank sends first
            const bool sending = (turn == 0) == (g.rank < partner);
            const int src = sending ? g.rank : partner, dst = sending ? partner : g.rank;
            const Message x = Make(s, r, kSizes[k], src, dst, 1000 + index, 1, index + 100 * bit);
            sending ? SendOne(x, LeadFor(index)) : RecvOne(x, LeadFor(index + 1));
          }
        }
      }
    }
  }
}

void Self() {
  const int me = g.rank;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (size_t k = 0; k < kHuge; ++k, ++index) {
        grStatus_t st{}, sst{};
        {  // Isend, Recv, Wait.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x, LeadFor(index));
          grRequest_t req = GR_REQUEST_NULL;
          Ok(grIsend(sb->data(), x.m.count, x.m.type, me, x.tag, g.world, GR_STREAM_HOST, &req),
             x.Describe() + ": grIsend");
          const grResult_t res = grRecv(rb->data(), x.cap, x.m.type, me, x.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(x, "grRecv after grIsend to itself", res, st, *rb);
          Ok(grWait(&req, &sst), x.Describe() + ": grWait of the grIsend");
          Expect(req == GR_REQUEST_NULL, x.Describe() + ": grWait left the request");
          CheckSendBuffer(x, *sb, x.data());
        }
        {  // Irecv, Send, Wait.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index + 1);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x);
          grRequest_t req = GR_REQUEST_NULL;
          Ok(grIrecv(rb->data(), x.cap, x.m.type, me, x.tag, g.world, GR_STREAM_HOST, &req),
             x.Describe() + ": grIrecv");
          Ok(grSend(sb->data(), x.m.count, x.m.type, me, x.tag, g.world, GR_STREAM_HOST),
             x.Describe() + ": grSend to itself after grIrecv");
          const grResult_t res = grWait(&req, &st);
          JudgeRecv(x, "grWait of the grIrecv", res, st, *rb);
        }
        {  // Sendrecv.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index + 2);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x, LeadFor(index + 1));
          const grResult_t res = grSendrecv(sb->data(), x.m.count, x.m.type, me, x.tag, rb->data(), x.cap, x.m.type, me,
                                            x.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(x, "grSendrecv to itself", res, st, *rb);
          CheckSendBuffer(x, *sb, x.data());
        }
      }
    }
  }
}

void SendrecvRing() {
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (size_t k = 0; k < kHuge; ++k, ++index) {
        const Message out = Make(s, r, kSizes[k], g.rank, right, 2500 + index, 3, index);
        const Message in = Make(s, r, kSizes[k], left, g.rank, 2500 + index, 3, index);
        const auto sb = SendBuffer(out, LeadFor(index));
        const auto rb = RecvBuffer(in);
        grStatus_t st{};
        const grResult_t res = grSendrecv(sb->data(), out.m.count, out.m.type, right, out.tag, rb->data(), in.cap,
                                          in.m.type, left, in.tag, g.world, &st, GR_STREAM_HOST);
        JudgeRecv(in, "grSendrecv", res, st, *rb);
        CheckSendBuffer(out, *sb, out.data());
      }
    }
  }
}

constexpr int kInflight = 12;
Message InflightMessage(int k, int src, int dst) {
  static constexpr Msg kMsgs[] = {{grUint8, 0},        {grUint8, 1},          {grUint8, 7},
                                  {grInt32, 1024 + 1}, {grFloat64, 8192 + 3}, {grInt32, (1u << 18) + 3}};
  // Every mix three times; each size from and into both memories.
  const Mem smem = (k + k / 6) % 2 == 1 ? Mem::kDevice : Mem::kHost, rmem = k / 2 % 2 == 1 ? Mem::kDevice : Mem::kHost;
  return Make(smem, rmem, kMsgs[k % 6], src, dst, 3000 + k, 4, k);
}

void Inflight() {
  std::vector<Message> rx, tx;
  std::vector<std::unique_ptr<Buffer>> rbufs, sbufs;
  std::vector<grRequest_t> rreq, sreq;
  auto post_recvs = [&](int parity) {
    for (int k = kInflight - 1; k >= 0; --k) {
      if (k % 2 != parity) continue;
      for (int peer = 0; peer < g.size; ++peer) {
        rx.push_back(InflightMessage(k, peer, g.rank));
        rbufs.push_back(RecvBuffer(rx.back(), LeadFor(k)));
        rreq.push_back(GR_REQUEST_NULL);
        Ok(grIrecv(rbufs.back()->data(), rx.back().cap, rx.back().m.type, peer, rx.back().tag, g.world, GR_STREAM_HOST,
                   &rreq.back()),
           rx.back().Describe() + ": grIrecv");
      }
    }
  };
  post_recvs(1);
  for (int k = 0; k < kInflight; ++k) {
    for (int d = 1; d <= g.size; ++d) {
      const int peer = (g.rank + d) % g.size;  // itself last
      tx.push_back(InflightMessage(k, g.rank, peer));
      sbufs.push_back(SendBuffer(tx.back()));
      sreq.push_back(GR_REQUEST_NULL);
      Ok(grIsend(sbufs.back()->data(), tx.back().m.count, tx.back().m.type, peer, tx.back().tag, g.world,
                 GR_STREAM_HOST, &sreq.back()),
         tx.back().Describe() + ": grIsend");
    }
  }
  post_recvs(0);
  for (size_t done = 0; done < rreq.size(); ++done) {
    int i = -1;
    grStatus_t st{};
    const grResult_t r = grWaitany(static_cast<int>(rreq.size()), rreq.data(), &i, &st);
    if (i < 0 || i >= static_cast<int>(rreq.size())) Fatal("grWaitany gave index " + std::to_string(i));
    JudgeRecv(rx[i], "grWaitany", r, st, *rbufs[i]);
    Expect(rreq[i] == GR_REQUEST_NULL, rx[i].Describe() + ": grWaitany left the request");
  }
  std::vector<grStatus_t> sst(sreq.size());
  Ok(grWaitall(static_cast<int>(sreq.size()), sreq.data(), sst.data()), "grWaitall of the sends");
  for (size_t i = 0; i < tx.size(); ++i) CheckSendBuffer(tx[i], *sbufs[i], tx[i].data());
}

constexpr int kPerSender = 24;
Message OrderMessage(int seq, int src) {
  static constexpr Msg kMsgs[] = {{grInt32, (1u << 16) + 3}, {grUint8, 5}, {grUint8, 4096}, {grUint8, 0}};
  const Mem smem = (seq + seq / 4) % 2 == 0 ? Mem::kDevice : Mem::kHost;  // each size from both
  return Make(smem, Mem::kHost, kMsgs[seq % 4], src, 0, 42 + seq % 3, 5, seq);
}

// On a communicator of its own, so that no other message can match.
void Order() {
  grComm_t comm = GR_COMM_NULL;
  Ok(grCommDup(g.world, &comm), "grCommDup");
  if (g.rank != 0) {
    std::vector<std::unique_ptr<Buffer>> bufs;
    std::vector<grRequest_t> reqs(kPerSender, GR_REQUEST_NULL);
    for (int seq = 0; seq < kPerSender; ++seq) {
      const Message x = OrderMessage(seq, g.rank);
      bufs.push_back(SendBuffer(x));
      Ok(grIsend(bufs.back()->data(), x.m.count, x.m.type, 0, x.tag, comm, GR_STREAM_HOST, &reqs[seq]),
         x.Describe() + ": grIsend");
    }
    Ok(grWaitall(kPerSender, reqs.data(), GR_STATUSES_IGNORE), "grWaitall of the sends");
  } else {
    std::vector<int> next(g.size, 0);
    const size_t cap = ((1u << 16) + 3) * 4;
    for (int k = 0; k < kPerSender * (g.size - 1); ++k) {
      Buffer b(k % 2 == 1 ? Mem::kDevice : Mem::kHost, cap);
      grStatus_t st{};
      const grResult_t r = grRecv(b.data(), cap, grUint8, GR_ANY_SOURCE, GR_ANY_TAG, comm, &st, GR_STREAM_HOST);
      if (r != grSuccess) Fatal("grRecv from GR_ANY_SOURCE with GR_ANY_TAG failed: " + ErrorText(r));
      if (!Expect(st.source > 0 && st.source < g.size, "GR_ANY_SOURCE: status source " + std::to_string(st.source))) {
        continue;
      }
      Message x = OrderMessage(next[st.source]++, st.source);
      x.rmem = k % 2 == 1 ? Mem::kDevice : Mem::kHost;
      const std::string what = x.Describe() + ": receive " + std::to_string(k) + " with both wildcards";
      char got[96];
      std::snprintf(got, sizeof(got), ": out of order or wrong status: got tag %d, %zu B", st.tag, st.bytes);
      Expect(st.tag == x.tag && st.bytes == x.bytes() && st.count == x.bytes() && st.error == grSuccess, what + got);
      const std::string diff = Differs(b.Image(), b, x.data());
      Expect(diff.empty(), std::string(what).append(": receive buffer: ").append(diff));
    }
  }
  Ok(grCommFree(&comm), "grCommFree");
}

void Truncation() {
  struct Trunc {
    Msg m;
    size_t cap;
  };
  static constexpr Trunc kTruncs[] = {
      {{grUint8, 7}, 3}, {{grUint8, 1}, 0}, {{grInt32, 1025}, 256}, {{grInt32, (1u << 18) + 3}, (1u << 17) + 1}};
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (const Trunc& t : kTruncs) {
        const Message out = Make(s, r, t.m, g.rank, right, 3500 + index, 6, index);
        Message in = Make(s, r, t.m, left, g.rank, 3500 + index, 6, index);
        in.cap = t.cap;
        const auto sb = SendBuffer(out);
        const auto rb = RecvBuffer(in, LeadFor(index));
        grRequest_t sreq = GR_REQUEST_NULL, rreq = GR_REQUEST_NULL;
        Ok(grIsend(sb->data(), out.m.count, out.m.type, right, out.tag, g.world, GR_STREAM_HOST, &sreq),
           out.Describe() + ": grIsend");
        grStatus_t st{};
        if (index % 2 == 0) {
          const grResult_t res = grRecv(rb->data(), in.cap, in.m.type, left, in.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(in, "grRecv", res, st, *rb);
        } else {
          Ok(grIrecv(rb->data(), in.cap, in.m.type, left, in.tag, g.world, GR_STREAM_HOST, &rreq),
             in.Describe() + ": grIrecv");
          const grResult_t res = grWait(&rreq, &st);
          JudgeRecv(in, "grWait of the grIrecv", res, st, *rb);
        }
        // MPI: truncation is the receiver's error; the send completes normally.
        Ok(grWait(&sreq, GR_STATUS_IGNORE), out.Describe() + ": grWait of the send of a truncated message");
        ++index;
      }
    }
  }
}

void Probe() {
  static constexpr Msg kMsgs[] = {{grUint8, 7}, {grUint8, 4097}, {grInt32, (1u << 18) + 3}};
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int flag = 1;
  grStatus_t st{};
  Ok(grIprobe(left, 3999, g.world, &flag, &st), "grIprobe of a tag never sent");
  Expect(flag == 0, "grIprobe found a message with a tag never sent");
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (const Msg& m : kMsgs) {
        const Message out = Make(s, r, m, g.rank, right, 4000 + index, 7, index);
        Message in = Make(s, r, m, left, g.rank, 4000 + index, 7, index);
        if (index % 2 == 1) in.cap = m.count / 2;  // probe, then a truncating receive
        const auto sb = SendBuffer(out);
        grRequest_t sreq = GR_REQUEST_NULL;
        Ok(grIsend(sb->data(), out.m.count, out.m.type, right, out.tag, g.world, GR_STREAM_HOST, &sreq),
           out.Describe() + ": grIsend");
        const std::string what = in.Describe() + ": ";
        st = {};
        Ok(grProbe(index % 2 == 0 ? left : GR_ANY_SOURCE, in.tag, g.world, &st), what + "grProbe");
        CheckStatus(what + "grProbe", st, grSuccess, left, in.tag, in.bytes(), grByte);
        size_t count = 0;
        Ok(grGetCount(&st, grInt32, &count), what + "grGetCount(grInt32) of the probe");
        Expect(count == in.bytes() / 4, what + "grGetCount(grInt32) of the probe gave " + std::to_string(count));
        flag = 0;
        st = {};
        Ok(grIprobe(GR_ANY_SOURCE, GR_ANY_TAG, g.world, &flag, &st), what + "grIprobe");
        Expect(flag == 1, what + "grIprobe after grProbe found nothing");
        if (flag == 1) CheckStatus(what + "grIprobe", st, grSuccess, left, in.tag, in.bytes(), grByte);
        RecvOne(in);
        Ok(grWait(&sreq, GR_STATUS_IGNORE), out.Describe() + ": grWait of the send");
        ++index;
      }
    }
  }
}

// ---- streams ---------------------------------------------------------------

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

void ExpectUnsupported(grResult_t r, const std::string& what) {
  const std::string message = grGetLastErrorMessage();
  Expect(r == grUnsupported && !message.empty(),
         what + ": returned " + grGetErrorString(r) + ", expected grUnsupported with a message (\"" + message + "\")");
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

// ---- main ------------------------------------------------------------------

int LocalRank() {
  const char* text = std::getenv("GPURUN_LOCAL_RANK");
  return text == nullptr ? 0 : std::atoi(text);
}

// The device and the stream, before grInit (the library finds the device current).
bool OpenDevice() {
  cudaError_t e = cudaGetDeviceCount(&g.devices);
  if (e != cudaSuccess || g.devices == 0) {
    std::fprintf(stderr, "device_p2p_check: no CUDA device: cudaGetDeviceCount: %s\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no devices");
    return false;
  }
  g.device = LocalRank() % g.devices;
  if ((e = cudaSetDevice(g.device)) == cudaSuccess) e = cudaStreamCreateWithFlags(&g.stream, cudaStreamNonBlocking);
  if (e != cudaSuccess) std::fprintf(stderr, "device_p2p_check: device %d: %s\n", g.device, cudaGetErrorString(e));
  return e == cudaSuccess;
}

int Main(int argc, char** argv) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: gpurun -n N device_p2p_check   (no arguments)\n");
    return 2;
  }
  if (!OpenDevice()) return 2;
  grResult_t r = grInit(&argc, &argv);
  if (r != grSuccess) {
    std::fprintf(stderr, "device_p2p_check: grInit: %s\n", ErrorText(r).c_str());
    return 2;
  }
  g.world = grCommWorld();
  grCommRank(g.world, &g.rank);
  grCommSize(g.world, &g.size);
  const struct {
    const char* name;
    void (*run)();
  } phases[] = {{"blocking", Blocking}, {"self", Self},      {"sendrecv", SendrecvRing},
                {"inflight", Inflight}, {"order", Order},    {"truncation", Truncation},
                {"probe", Probe},       {"stream", Streams}, {"stream-host", HostBufferWithStream},
                {"pool", Pool}};
  for (const auto& phase : phases) {
    g.phase = phase.name;
    phase.run();
    Ok(grBarrier(g.world, GR_STREAM_HOST), "grBarrier after the phase");
  }
  g.phase = "summary";
  const uint64_t mine[3] = {g.checks, g.failures, g.skipped};
  uint64_t total[3] = {0, 0, 0};
  Ok(grAllreduce(mine, total, 3, grUint64, grSum, g.world, GR_STREAM_HOST), "grAllreduce of the counts");
  if (g.rank == 0) {
    std::printf("device_p2p_check: %llu checks, %llu failures, %llu skipped on %d ranks (%d GPUs)\n",
                static_cast<unsigned long long>(total[0]), static_cast<unsigned long long>(total[1]),
                static_cast<unsigned long long>(total[2]), g.size, g.devices);
    std::fflush(stdout);
  }
  r = grFinalize();
  if (r != grSuccess) {
    std::fprintf(stderr, "device_p2p_check rank %d: grFinalize: %s\n", g.rank, ErrorText(r).c_str());
    return 2;
  }
  cudaStreamDestroy(g.stream);
  return total[1] == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return Main(argc, argv); }
