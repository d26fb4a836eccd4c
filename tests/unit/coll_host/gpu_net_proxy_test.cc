// GpuNetProxy on its own: two ranks as threads of one process on two
// simulated hosts (ThreadLink for the address exchange, real UCX between
// the proxies), each thread playing its GPU kernels' part on plain host
// memory laid out as GpuNetLayout says: Simple and LL steps mixed on one
// connection, both ways at once, many times round the FIFO, with LL steps
// read only through their lines' flags (as the kernel does) and from a
// first step just before LL's 32-bit flag wraps; a peer whose proxy went
// away fails the other's connection naming it and sets the abort word,
// unless the proxy was quiesced; bad layouts are refused.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "coll/host/gpu_net_proxy.h"
#include "coll/wire_format.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kSimpleBytes = 8 * 4096;  // 4 KiB slots
constexpr uint64_t kLLBytes = 8 * 2048;      // 128 lines a slot

GpuNetLayout Layout() { return GpuNetLayout{kSimpleBytes, kLLBytes}; }

struct FreeAligned {
  void operator()(uint8_t* p) const { std::free(p); }
};
using Memory = std::unique_ptr<uint8_t, FreeAligned>;

Memory NewMemory() {
  const uint64_t bytes = Layout().Bytes();
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096));
  std::memset(p, 0, bytes);
  return Memory(p);
}

uint64_t* Counter(uint8_t* base, uint64_t at) { return reinterpret_cast<uint64_t*>(base + at); }
uint64_t Load(uint8_t* base, uint64_t at) { return wire_host::Load(Counter(base, at), std::memory_order_acquire); }
void Post(uint8_t* base, uint64_t at, uint64_t v) { wire_host::Store(Counter(base, at), v, std::memory_order_release); }

// Step s of these tests: every third an LL step, of 0..128 lines, and
// steps 100..139 LL steps without lines (as a ring's empty chunks are: the
// receiving kernel releases those before they arrive); the rest Simple, of
// 0..4096 bytes.
bool IsEmptyRun(uint64_t s) { return s % (uint64_t{1} << 31) >= 100 && s % (uint64_t{1} << 31) < 140; }
bool IsLL(uint64_t s) { return s % 3 == 1 || IsEmptyRun(s); }
uint64_t LinesOf(uint64_t s) { return IsEmptyRun(s) ? 0 : (s * 37) % (StepLines(Protocol::kLL, kLLBytes) + 1); }
uint64_t BytesOf(uint64_t s) { return (s * 517) % (StepBytes(kSimpleBytes) + 1); }
uint8_t ByteOf(uint64_t s, uint64_t i) { return static_cast<uint8_t>((s * 31 + i) & 0xFF); }
uint64_t WordOf(uint64_t s, uint64_t i) { return s << 32 | i; }

template <typename Ready>
bool WaitFor(Ready&& ready, double seconds = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::yield();
  }
  return true;
}

// The sending kernel's part for step s.
bool SendStep(uint8_t* base, uint64_t s) {
  if (!WaitFor([&] { return SlotFree(s, Load(base, GpuNetLayout::kHead)); })) return false;
  auto* sizes = reinterpret_cast<uint32_t*>(base + GpuNetLayout::kSizes);
  if (IsLL(s)) {
    auto* lines = reinterpret_cast<LLLine*>(base + Layout().LLFifo() + SlotOffset(s, kLLBytes));
    for (uint64_t i = 0; i < LinesOf(s); ++i) lines[i].write(WordOf(s, i), LLFlag(s));
    sizes[s % kFifoSteps] = static_cast<uint32_t>(LinesOf(s) * sizeof(LLLine)) | kNetStepLL;
  } else {
    uint8_t* slot = base + GpuNetLayout::kFifo + SlotOffset(s, kSimpleBytes);
    for (uint64_t i = 0; i < BytesOf(s); ++i) slot[i] = ByteOf(s, i);
    sizes[s % kFifoSteps] = static_cast<uint32_t>(BytesOf(s));
  }
  Post(base, GpuNetLayout::kTail, s + 1);
  return true;
}

// The receiving kernel's part for step s: "" or what was wrong. An LL step
// is read through its flags only, as the kernel reads it.
std::string RecvStep(uint8_t* base, uint64_t s) {
  if (IsLL(s)) {
    const auto* lines = reinterpret_cast<const LLLine*>(base + Layout().LLFifo() + SlotOffset(s, kLLBytes));
    for (uint64_t i = 0; i < LinesOf(s); ++i) {
      uint64_t got = 0;
      if (!WaitFor([&] { return lines[i].read(LLFlag(s), &got); })) {
        return "LL step " + std::to_string(s) + " line " + std::to_string(i) + " never got its flag";
      }
      if (got != WordOf(s, i)) return "LL step " + std::to_string(s) + " line " + std::to_string(i) + " differs";
    }
  } else {
    if (!WaitFor([&] { return Load(base, GpuNetLayout::kTail) > s; })) {
      return "step " + std::to_string(s) + " never arrived";
    }
    const uint8_t* slot = base + GpuNetLayout::kFifo + SlotOffset(s, kSimpleBytes);
    for (uint64_t i = 0; i < BytesOf(s); ++i) {
      if (slot[i] != ByteOf(s, i)) return "step " + std::to_string(s) + " byte " + std::to_string(i) + " differs";
    }
  }
  Post(base, GpuNetLayout::kHead, s + 1);
  return "";
}

// Sets one side's counters to `first` and, on a receiving side, every LL
// line's flag to one a stale match would show (a step 2^32 later).
void StartAt(uint8_t* base, uint64_t first, bool recv) {
  Post(base, GpuNetLayout::kTail, first);
  Post(base, GpuNetLayout::kHead, first);
  if (!recv) return;
  auto* lines = reinterpret_cast<LLLine*>(base + Layout().LLFifo());
  for (uint64_t i = 0; i < kLLBytes / sizeof(LLLine); ++i) {
    const uint64_t slot = i / StepLines(Protocol::kLL, kLLBytes);
    lines[i].write(0xdeadbeefdeadbeefull, LLFlag(first + slot + kFifoSteps));
  }
}

using Body = std::function<std::string(int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t* abort)>;

std::string RunTwo(const Body& body) {
  ThreadWorld world({0, 1}, NewUnique());
  std::string errors[2];
  std::thread threads[2];
  for (int r = 0; r < 2; ++r) {
    threads[r] = std::thread([&, r] {
      ThreadLink link(world, r);
      uint32_t abort = 0;
      auto proxy = GpuNetProxy::Create(link, &abort);
      if (!proxy.ok()) {
        errors[r] = proxy.status().ToString();
        return;
      }
      errors[r] = body(r, **proxy, world, &abort);
    });
  }
  for (auto& t : threads) t.join();
  return errors[0] + (errors[1].empty() ? "" : " / rank 1: " + errors[1]);
}

// The end of an exchange, as GpuColl's teardown: every step sent from
// `out` (up to step `end`) left this side, Quiesce, a barrier, the edges
// let go; then what went wrong, if anything. Quiesce comes before the
// barrier: a peer past it may close at once, before this side ran on.
std::string Finish(int rank, GpuNetProxy& proxy, ThreadWorld& world, uint8_t* out, uint64_t end, std::string got,
                   const std::string& error) {
  if (got.empty() && !WaitFor([&] { return Load(out, GpuNetLayout::kHead) == end; })) got = "sends never completed";
  char done = 1;
  std::vector<char> all(2);
  proxy.Quiesce();
  if (Status s = world.AllGather(rank, &done, 1, all.data()); !s.ok()) return s.ToString();
  // Rank 1 closes while rank 0 still sleeps here (as a descheduled
  // thread would): that must fail nothing.
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  proxy.RemoveOwner(&proxy);
  if (Status s = proxy.failure(); !s.ok()) return s.ToString();
  return error.empty() ? got : error;
}

// Both directions at once, `steps` steps each from `first`, then Finish.
std::string Exchange(int rank, GpuNetProxy& proxy, ThreadWorld& world, uint64_t first, uint64_t steps) {
  Memory out = NewMemory();
  Memory in = NewMemory();
  if (first != 0) {
    StartAt(out.get(), first, false);
    StartAt(in.get(), first, true);
  }
  GpuNetEdge send{1 - rank, true, 3, out.get(), Layout(), first, &proxy};
  GpuNetEdge recv{1 - rank, false, 3, in.get(), Layout(), first, &proxy};
  if (Status s = proxy.AddEdge(send); !s.ok()) return s.ToString();
  if (Status s = proxy.AddEdge(recv); !s.ok()) return s.ToString();
  proxy.Wake();
  std::string error;
  std::thread sender([&] {
    for (uint64_t s = first; s < first + steps; ++s) {
      if (!SendStep(out.get(), s)) {
        error = "no free slot for step " + std::to_string(s);
        return;
      }
    }
  });
  std::string got;
  for (uint64_t s = first; s < first + steps && got.empty(); ++s) got = RecvStep(in.get(), s);
  sender.join();
  return Finish(rank, proxy, world, out.get(), first + steps, got, error);
}

TEST(GpuNetProxy, SimpleAndLLStepsArriveRoundTheFifo) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t* abort) {
              std::string e = Exchange(rank, proxy, world, 0, 400);
              if (e.empty() && *abort != 0) e = "abort set";
              return e;
            }),
            "");
}

// LL's flags wrap at 2^32 steps; the receiving lines start with the flags
// a stale line would hold, so a proxy that marked a step ready before its
// lines were copied, or copied them into the wrong slot, shows.
TEST(GpuNetProxy, StepsCrossTheLLFlagWrap) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t*) {
              return Exchange(rank, proxy, world, (uint64_t{1} << 32) - 40, 80);
            }),
            "");
}

TEST(GpuNetProxy, PeerGoneFailsTheConnectionAndAborts) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t* abort) -> std::string {
              Memory in = NewMemory();
              if (rank == 0) {
                if (Status s = proxy.AddEdge({1, false, 0, in.get(), Layout(), 0, &proxy}); !s.ok()) {
                  return s.ToString();
                }
              }
              char ready = 1;
              std::vector<char> all(2);
              if (!world.AllGather(rank, &ready, 1, all.data()).ok()) return "allgather failed";
              if (rank == 1) {
                proxy.Stop();
                return "";
              }
              if (!WaitFor([&] { return *reinterpret_cast<volatile uint32_t*>(abort) != 0; })) {
                return "abort never set";
              }
              const std::string why = proxy.failure().ToString();
              proxy.RemoveOwner(&proxy);
              return why.find("rank 1") != std::string::npos ? "" : "failure does not name rank 1: " + why;
            }),
            "");
}

TEST(GpuNetProxy, QuiescedProxyTakesAPeerClosingQuietly) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t* abort) -> std::string {
              Memory in = NewMemory();
              if (Status s = proxy.AddEdge({1 - rank, false, 0, in.get(), Layout(), 0, &proxy}); !s.ok()) {
                return s.ToString();
              }
              proxy.Quiesce();
              char ready = 1;
              std::vector<char> all(2);
              if (!world.AllGather(rank, &ready, 1, all.data()).ok()) return "allgather failed";
              if (rank == 1) {
                proxy.Stop();
                return "";
              }
              std::this_thread::sleep_for(std::chrono::milliseconds(300));
              std::string e = proxy.failure().ok() && *abort == 0 ? "" : "failed: " + proxy.failure().ToString();
              proxy.RemoveOwner(&proxy);
              return e;
            }),
            "");
}

// A point-to-point edge: each step's Simple data and its 16-byte header
// (two messages) both arrive before tail, many times round the FIFO, both
// ways; on some steps the header slot is left as it was (the kernel writes
// it only at a message's first step), and whatever it held travels.
TEST(GpuNetProxy, PointToPointStepsCarryTheirHeaders) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld& world, uint32_t*) -> std::string {
              const GpuNetLayout layout{kSimpleBytes, 0};
              Memory out = NewMemory();
              Memory in = NewMemory();
              GpuNetEdge send{1 - rank, true, 9, out.get(), layout, 0, &proxy, true};
              GpuNetEdge recv{1 - rank, false, 9, in.get(), layout, 0, &proxy, true};
              if (Status s = proxy.AddEdge(send); !s.ok()) return s.ToString();
              if (Status s = proxy.AddEdge(recv); !s.ok()) return s.ToString();
              constexpr uint64_t kSteps = 300;
              auto header_of = [](uint64_t s) { return s % 5 == 0 ? s * 1000 + 7 : 0; };
              std::string error;
              std::thread sender([&] {
                uint8_t* base = out.get();
                auto* sizes = reinterpret_cast<uint32_t*>(base + GpuNetLayout::kSizes);
                for (uint64_t s = 0; s < kSteps; ++s) {
                  if (!WaitFor([&] { return SlotFree(s, Load(base, GpuNetLayout::kHead)); })) {
                    error = "no free slot for step " + std::to_string(s);
                    return;
                  }
                  uint8_t* slot = base + GpuNetLayout::kFifo + SlotOffset(s, kSimpleBytes);
                  for (uint64_t i = 0; i < BytesOf(s); ++i) slot[i] = ByteOf(s, i);
                  auto* header = reinterpret_cast<uint64_t*>(base + GpuNetLayout::kHeaders +
                                                             (s % kFifoSteps) * GpuNetLayout::kHeaderBytes);
                  if (header_of(s) != 0) header[0] = header_of(s);
                  sizes[s % kFifoSteps] = static_cast<uint32_t>(BytesOf(s));
                  Post(base, GpuNetLayout::kTail, s + 1);
                }
              });
              std::string got;
              uint8_t* base = in.get();
              for (uint64_t s = 0; s < kSteps && got.empty(); ++s) {
                if (!WaitFor([&] { return Load(base, GpuNetLayout::kTail) > s; })) {
                  got = "step " + std::to_string(s) + " never arrived";
                  break;
                }
                const auto* header = reinterpret_cast<const uint64_t*>(base + GpuNetLayout::kHeaders +
                                                                       (s % kFifoSteps) * GpuNetLayout::kHeaderBytes);
                if (header_of(s) != 0 && header[0] != header_of(s)) {
                  got = "step " + std::to_string(s) + " header " + std::to_string(header[0]);
                }
                const uint8_t* slot = base + GpuNetLayout::kFifo + SlotOffset(s, kSimpleBytes);
                for (uint64_t i = 0; i < BytesOf(s) && got.empty(); ++i) {
                  if (slot[i] != ByteOf(s, i)) got = "step " + std::to_string(s) + " byte " + std::to_string(i);
                }
                Post(base, GpuNetLayout::kHead, s + 1);
              }
              sender.join();
              return Finish(rank, proxy, world, out.get(), kSteps, got, error);
            }),
            "");
}

TEST(GpuNetProxy, LayoutsItCannotCarryAreRefused) {
  EXPECT_EQ(RunTwo([](int rank, GpuNetProxy& proxy, ThreadWorld&, uint32_t*) -> std::string {
              Memory m = NewMemory();
              GpuNetEdge big_ll{1 - rank, true, 0, m.get(), GpuNetLayout{8 * 1024, 8 * 2048}, 0, &proxy};
              GpuNetEdge bad_edge{1 - rank, true, GpuNetProxy::kMaxEdges, m.get(), Layout(), 0, &proxy};
              GpuNetEdge p2p_ll{1 - rank, true, 0, m.get(), Layout(), 0, &proxy, true};
              const Status a = proxy.AddEdge(big_ll);
              const Status b = proxy.AddEdge(bad_edge);
              const Status c = proxy.AddEdge(p2p_ll);
              if (a.code() != grInvalidArgument) return "an LL step larger than a Simple one: " + a.ToString();
              if (b.code() != grInvalidArgument) return "edge number out of range: " + b.ToString();
              if (c.code() != grInvalidArgument) return "a point-to-point edge with an LL FIFO: " + c.ToString();
              return "";
            }),
            "");
}

}  // namespace
}  // namespace gpurun::coll
