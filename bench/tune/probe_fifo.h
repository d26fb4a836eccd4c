// One-direction shared-memory FIFO of gpurun-tune-probe (shm_probe.cc): the
// three protocols' wire formats (coll/wire_format.h) over 8-step slots of the
// host executor's FIFO sizes (coll/host/fifo_sizes.h), with the head credit
// and (Simple) tail counter, as a host executor's connector moves them. Not the executor: the smallest faithful
// imitation of one hop, to measure it before the executor exists.
#ifndef GPURUN_BENCH_TUNE_PROBE_FIFO_H_
#define GPURUN_BENCH_TUNE_PROBE_FIFO_H_

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "coll/host/fifo_sizes.h"
#include "coll/wire_format.h"

namespace gpurun::coll::probe {

// How long any wait of the probe may take before it gives up naming the peer.
inline constexpr double kProbeTimeoutSeconds = 10;

// Spins until `ready()`; past the timeout the process exits naming the wait.
template <typename Ready>
void WaitFor(Ready ready, const char* what, const char* peer) {
  uint32_t spins = 0;
  std::chrono::steady_clock::time_point start{};
  while (!ready()) {
    if ((++spins & 0xfffu) != 0) continue;
    const auto now = std::chrono::steady_clock::now();
    if (start == std::chrono::steady_clock::time_point{}) {
      start = now;
    } else if (std::chrono::duration<double>(now - start).count() > kProbeTimeoutSeconds) {
      (void)std::fprintf(stderr, "gpurun-tune-probe (pid %d): no %s from %s within %.0f s; giving up\n",
                         static_cast<int>(getpid()), what, peer, kProbeTimeoutSeconds);
      _exit(1);
    }
  }
}

// Both ranks call it; returns once both have arrived (any number of times).
inline void Barrier(StepCounter* arrived, int rank) {
  const uint64_t mine = arrived[rank].load() + 1;
  arrived[rank].post(mine);
  WaitFor([&] { return arrived[1 - rank].load() >= mine; }, "barrier arrival", rank == 0 ? "rank 1" : "rank 0");
}

// Per protocol: its slots, the receiver's head credit and (Simple) the tail.
struct ProtoFifo {
  StepCounter head;
  StepCounter tail;
};

struct Fifo {
  ProtoFifo state[kNumProtocols];
  alignas(128) LLLine ll[kHostLLBufferBytes / sizeof(LLLine)];
  alignas(128) LL128Line ll128[kHostLL128BufferBytes / sizeof(LL128Line)];
  alignas(128) char simple[kHostSimpleBufferBytes];
};

// Puts `n` received bytes at `dst`: a copy, or (reduce) dst += src as floats
// (n a multiple of 4), what a receive that reduces does.
inline void Deliver(char* dst, const char* src, uint64_t n, bool reduce) {
  if (!reduce) {
    std::memcpy(dst, src, n);
    return;
  }
  for (uint64_t i = 0; i + 4 <= n; i += 4) {
    float a, b;
    std::memcpy(&a, dst + i, 4);
    std::memcpy(&b, src + i, 4);
    a += b;
    std::memcpy(dst + i, &a, 4);
  }
}

// How an endpoint behaves beyond its protocol.
struct EndpointMode {
  // LL / LL128 receiver: first wait for the step's last line, then read the
  // others (written by then), instead of chasing the sender line by line
  // (which bounces each cache line between the cores).
  bool last_line_first = false;
  // Receiver: reduce into the destination (float sum) instead of copying.
  bool reduce = false;
};

// One side (sender or receiver) of a Fifo for one protocol; both sides count
// steps from 0, so each protocol's first use of a Fifo must be its only one.
class Endpoint {
 public:
  Endpoint(Fifo& fifo, Protocol proto, const char* peer, EndpointMode mode)
      : fifo_(fifo), proto_(proto), state_(fifo.state[static_cast<int>(proto)]), peer_(peer), mode_(mode) {}

  // Data bytes one step carries.
  uint64_t StepData() const { return StepDataBytes(proto_, BufferBytes()); }

  void Send(const char* src, uint64_t bytes) {
    for (uint64_t done = 0; done < bytes; done += StepData()) SendStep(src + done, std::min(StepData(), bytes - done));
  }
  void Recv(char* dst, uint64_t bytes) {
    for (uint64_t done = 0; done < bytes; done += StepData()) RecvStep(dst + done, std::min(StepData(), bytes - done));
  }

  // One step of `n` <= StepData() bytes.
  void SendStep(const char* src, uint64_t n) {
    WaitFor([&] { return SlotFree(step_, state_.head.load()); }, "FIFO credit", peer_);
    const uint64_t slot = step_ % kFifoSteps;
    if (proto_ == Protocol::kSimple) {
      std::memcpy(fifo_.simple + slot * StepBytes(BufferBytes()), src, n);
      state_.tail.post(step_ + 1);
    } else if (proto_ == Protocol::kLL) {
      LLLine* lines = fifo_.ll + slot * StepLines(proto_, BufferBytes());
      for (uint64_t off = 0; off < n; off += 8) {
        uint64_t data = 0;
        std::memcpy(&data, src + off, std::min<uint64_t>(8, n - off));
        lines[off / 8].write(data, LLFlag(step_));
      }
    } else {
      LL128Line* lines = fifo_.ll128 + slot * StepLines(proto_, BufferBytes());
      for (uint64_t off = 0; off < n; off += kLL128LineData) {
        uint64_t data[kLL128DataWords] = {};
        std::memcpy(data, src + off, std::min(kLL128LineData, n - off));
        lines[off / kLL128LineData].write(data, LL128Flag(step_));
      }
    }
    ++step_;
  }

  void RecvStep(char* dst, uint64_t n) {
    const uint64_t slot = step_ % kFifoSteps;
    if (proto_ == Protocol::kSimple) {
      WaitFor([&] { return state_.tail.load() > step_; }, "Simple step", peer_);
      Deliver(dst, fifo_.simple + slot * StepBytes(BufferBytes()), n, mode_.reduce);
    } else if (proto_ == Protocol::kLL) {
      const LLLine* lines = fifo_.ll + slot * StepLines(proto_, BufferBytes());
      uint64_t data = 0;
      if (mode_.last_line_first) {
        WaitFor([&] { return lines[(n - 1) / 8].read(LLFlag(step_), &data); }, "LL line", peer_);
      }
      for (uint64_t off = 0; off < n; off += 8) {
        WaitFor([&] { return lines[off / 8].read(LLFlag(step_), &data); }, "LL line", peer_);
        Deliver(dst + off, reinterpret_cast<const char*>(&data), std::min<uint64_t>(8, n - off), mode_.reduce);
      }
    } else {
      const LL128Line* lines = fifo_.ll128 + slot * StepLines(proto_, BufferBytes());
      uint64_t data[kLL128DataWords];
      if (mode_.last_line_first) {
        WaitFor([&] { return lines[(n - 1) / kLL128LineData].read(LL128Flag(step_), data); }, "LL128 line", peer_);
      }
      for (uint64_t off = 0; off < n; off += kLL128LineData) {
        WaitFor([&] { return lines[off / kLL128LineData].read(LL128Flag(step_), data); }, "LL128 line", peer_);
        Deliver(dst + off, reinterpret_cast<const char*>(data), std::min(kLL128LineData, n - off), mode_.reduce);
      }
    }
    state_.head.post(step_ + 1);
    ++step_;
  }

 private:
  static constexpr uint64_t kLL128LineData = kLL128DataWords * 8;
  uint64_t BufferBytes() const { return HostBufferBytes(proto_); }

  Fifo& fifo_;
  Protocol proto_;
  ProtoFifo& state_;
  const char* peer_;
  EndpointMode mode_;
  uint64_t step_ = 0;
};

}  // namespace gpurun::coll::probe

#endif  // GPURUN_BENCH_TUNE_PROBE_FIFO_H_
