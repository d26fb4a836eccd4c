// p2p_check_support.cc: device_p2p_check's rank state, failure reporting,
// message patterns, poisoned buffers and the one-message send/receive checks
// (see p2p_check_support.h).
#include "tests/gpu/p2p_check_support.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun::p2p_check {
namespace {

constexpr uint64_t kMaxPrinted = 200;  // failure lines per rank

void Fail(const std::string& what) {
  if (++g.failures <= kMaxPrinted) {
    std::printf("FAIL rank=%d %s: %s\n", g.rank, g.phase, what.c_str());
    std::fflush(stdout);
  }
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

}  // namespace

Rank g;

const char* MemName(Mem m) { return m == Mem::kHost ? "host" : "device"; }

// ---- reporting -------------------------------------------------------------

std::string ErrorText(grResult_t r) {
  const std::string message = grGetLastErrorMessage();
  return std::string(grGetErrorString(r)) + ": " + message;
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

void Ok(grResult_t r, const std::string& what) {
  ++g.checks;
  if (r != grSuccess) Fatal(what + " failed: " + ErrorText(r));
}

// ---- data ------------------------------------------------------------------

size_t ElemBytes(grDataType_t t) {
  static constexpr size_t kSizes[grNumDataTypes] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2};
  return kSizes[t];
}

Pinned::Pinned(size_t bytes) { Cuda(cudaMallocHost(&p_, std::max<size_t>(bytes, 1)), "cudaMallocHost"); }

Pinned::~Pinned() { cudaFreeHost(p_); }

Buffer::Buffer(Mem mem, size_t bytes, size_t lead) : mem_(mem), bytes_(bytes), lead_(lead) {
  if (mem == Mem::kDevice) {
    Cuda(cudaMalloc(&base_, total()), "cudaMalloc");
  } else if ((base_ = std::malloc(total())) == nullptr) {
    Fatal("malloc of " + std::to_string(total()) + " bytes");
  }
  Write({});
}

Buffer::~Buffer() { mem_ == Mem::kDevice ? static_cast<void>(cudaFree(base_)) : std::free(base_); }

void Buffer::Write(const std::vector<uint8_t>& head) {
  std::vector<uint8_t> image(total(), kPoison);
  std::copy(head.begin(), head.end(), image.begin() + lead_);
  if (mem_ == Mem::kHost) {
    std::memcpy(base_, image.data(), total());
    return;
  }
  Cuda(cudaMemcpy(base_, image.data(), total(), cudaMemcpyHostToDevice), "cudaMemcpy to the device");
  Cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

std::vector<uint8_t> Buffer::Image() const {
  std::vector<uint8_t> image(total());
  if (mem_ == Mem::kHost) {
    std::memcpy(image.data(), base_, total());
  } else {
    Cuda(cudaMemcpy(image.data(), base_, total(), cudaMemcpyDeviceToHost), "cudaMemcpy from the device");
  }
  return image;
}

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

std::vector<uint8_t> Message::data() const { return Pattern(salt, bytes()); }

std::string Message::Describe() const {
  char text[200];
  std::snprintf(text, sizeof(text), "%s->%s %s x%zu (%zu B, receive count %zu) %d->%d tag %d", MemName(smem),
                MemName(rmem), TypeName(m.type), m.count, bytes(), cap, src, dst, tag);
  return text;
}

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

std::unique_ptr<Buffer> SendBuffer(const Message& x, size_t lead) {
  auto b = std::make_unique<Buffer>(x.smem, x.bytes(), lead);
  b->Write(x.data());
  return b;
}

std::unique_ptr<Buffer> RecvBuffer(const Message& x, size_t lead) {
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

void JudgeRecv(const Message& x, const char* call, grResult_t r, const grStatus_t& st, const Buffer& b,
               const std::vector<uint8_t>* image) {
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

void SendOne(const Message& x, size_t lead) {
  const auto b = SendBuffer(x, lead);
  Ok(grSend(b->data(), x.m.count, x.m.type, x.dst, x.tag, g.world, GR_STREAM_HOST), x.Describe() + ": grSend");
  CheckSendBuffer(x, *b, x.data());
}

void RecvOne(const Message& x, size_t lead) {
  const auto b = RecvBuffer(x, lead);
  grStatus_t st{};
  const grResult_t r = grRecv(b->data(), x.cap, x.m.type, x.src, x.tag, g.world, &st, GR_STREAM_HOST);
  JudgeRecv(x, "grRecv", r, st, *b);
}

}  // namespace gpurun::p2p_check
