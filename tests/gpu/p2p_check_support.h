// p2p_check_support.h: what every phase of device_p2p_check (the rank
// program of gpu_p2p_test) stands on: the rank's state and counters, failure
// reporting (Expect counts a check, Ok is a call that must succeed, Fatal
// aborts the job), host and device buffers poisoned with guard bytes and the
// byte-for-byte check of them, the messages (a pattern unique to phase,
// sender, receiver and index) and the helpers that send one message or
// receive and judge one (result, status, grGetCount, buffer).
#ifndef GPURUN_TESTS_GPU_P2P_CHECK_SUPPORT_H_
#define GPURUN_TESTS_GPU_P2P_CHECK_SUPPORT_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun::p2p_check {

inline constexpr uint8_t kPoison = 0xA5;
inline constexpr size_t kGuard = 64;

enum class Mem { kHost, kDevice };
inline constexpr Mem kMems[] = {Mem::kHost, Mem::kDevice};
const char* MemName(Mem m);

// This rank: its place in the world, its device and stream, the phase that
// runs (named in failure lines) and the counts summed for the summary.
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
extern Rank g;

// ---- reporting -------------------------------------------------------------

// The last error's message, then the code's name (the message is only valid
// until the next gpurun call).
std::string ErrorText(grResult_t r);

// Counts a check; when !ok counts a failure and prints "FAIL rank=R <phase>:
// <what>" (the first 200 failures of a rank). Returns ok.
bool Expect(bool ok, const std::string& what);

// Prints the failure and aborts the job (grAbort): the ranks may be out of step.
[[noreturn]] void Fatal(const std::string& what);

// A CUDA call that must succeed (else Fatal).
void Cuda(cudaError_t e, const char* what);

// A call that must succeed: anything else may leave the ranks out of step.
void Ok(grResult_t r, const std::string& what);

// ---- data ------------------------------------------------------------------

size_t ElemBytes(grDataType_t t);

// Pinned host memory (for the stream's copies).
class Pinned {
 public:
  explicit Pinned(size_t bytes);
  ~Pinned();
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
  Buffer(Mem mem, size_t bytes, size_t lead = 0);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return static_cast<uint8_t*>(base_) + lead_; }
  void* base() const { return base_; }
  size_t bytes() const { return bytes_; }
  size_t lead() const { return lead_; }
  size_t total() const { return lead_ + bytes_ + kGuard; }

  // Poison everywhere, then `head` at the start of the data; landed on return.
  void Write(const std::vector<uint8_t>& head);

  // The whole allocation, as it is now.
  std::vector<uint8_t> Image() const;

 private:
  Mem mem_;
  size_t bytes_;
  size_t lead_;
  void* base_ = nullptr;
};

// "" when `image` (of `b`) holds `expected` at the start of the data and
// poison everywhere else (lead, the rest of the data, guard); else the first
// wrong byte.
std::string Differs(const std::vector<uint8_t>& image, const Buffer& b, const std::vector<uint8_t>& expected);

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
  std::vector<uint8_t> data() const;
  std::string Describe() const;
};

// The message `index` of phase number `phase` from `src` to `dst`.
Message Make(Mem smem, Mem rmem, Msg m, int src, int dst, int tag, int phase, int index);

// A buffer holding `x`'s data / a poisoned one for receiving `x`.
std::unique_ptr<Buffer> SendBuffer(const Message& x, size_t lead = 0);
std::unique_ptr<Buffer> RecvBuffer(const Message& x, size_t lead = 0);

void CheckSendBuffer(const Message& x, const Buffer& b, const std::vector<uint8_t>& expected);

void CheckStatus(const std::string& what, const grStatus_t& st, grResult_t error, int source, int tag, size_t bytes,
                 grDataType_t type);

// A completed receive of `x` into `b` that returned `r`: result and status
// (grTruncated when x.cap < the message), then the buffer (`image`: as read
// after the call; null: read it now).
void JudgeRecv(const Message& x, const char* call, grResult_t r, const grStatus_t& st, const Buffer& b,
               const std::vector<uint8_t>* image = nullptr);

// Sends `x` from a fresh buffer (blocking) and checks the buffer is unchanged.
void SendOne(const Message& x, size_t lead = 0);

// Receives `x` into a fresh buffer (blocking) and judges it.
void RecvOne(const Message& x, size_t lead = 0);

}  // namespace gpurun::p2p_check

#endif  // GPURUN_TESTS_GPU_P2P_CHECK_SUPPORT_H_
