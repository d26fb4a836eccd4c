// NetProxy on its own, two ranks as threads of one process (ThreadLink for
// the address exchange, real UCX between the two proxies): steps of every
// size from empty to a full slot arrive in order, in their slots, many times
// round the FIFO; steps published just before the proxy stops still arrive,
// and so do those a call left unsent (the progress thread sends them); a
// peer whose proxy went away fails the other's FIFO naming it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "coll/host/net_proxy.h"
#include "p2p/backoff.h"
#include "tests/unit/coll_host/rank_threads.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {
namespace {

constexpr uint64_t kBuffer = 8 * 4096;  // 4 KiB slots
constexpr uint64_t kId = 77;

p2p::Backoff::Policy Policy() {
  using namespace std::chrono_literals;
  return p2p::Backoff::Policy{20us, 0us, 100us};
}

// Bytes of step s in these tests: 0, then growing, capped at the slot.
uint32_t BytesOf(uint64_t s) { return static_cast<uint32_t>((s * 517) % (kBuffer / kFifoSteps + 1)); }
std::byte ByteOf(uint64_t s, uint64_t i) { return static_cast<std::byte>((s * 31 + i) & 0xFF); }

// Spins (running proxy passes) until ready() or `seconds` passed.
template <typename Ready>
bool WaitFor(NetProxy& proxy, Ready&& ready, double seconds = 20) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    proxy.Poll();
  }
  return true;
}

// The executor's side of a send of step s.
bool SendStep(NetProxy& proxy, NetFifo& f, uint64_t s) {
  if (!WaitFor(proxy, [&] { return SlotFree(s, f.header.head.load()) || f.failed.load(); })) return false;
  if (f.failed.load()) return false;
  std::byte* slot = f.Slot(s);
  for (uint32_t i = 0; i < BytesOf(s); ++i) slot[i] = ByteOf(s, i);
  f.sizes[s % kFifoSteps] = BytesOf(s);
  f.header.tail.post(s + 1);
  proxy.Kick();
  return true;
}

// The executor's side of a receive of step s: "" or what was wrong.
std::string RecvStep(NetProxy& proxy, NetFifo& f, uint64_t s) {
  if (!WaitFor(proxy, [&] { return f.header.tail.load() > s || f.failed.load(); })) return "timed out";
  if (f.header.tail.load() <= s) return f.error.ToString();
  if (f.sizes[s % kFifoSteps] != BytesOf(s)) {
    return "step " + std::to_string(s) + " carried " + std::to_string(f.sizes[s % kFifoSteps]) + " bytes";
  }
  const std::byte* slot = f.Slot(s);
  for (uint32_t i = 0; i < BytesOf(s); ++i) {
    if (slot[i] != ByteOf(s, i)) return "step " + std::to_string(s) + " byte " + std::to_string(i) + " differs";
  }
  f.header.head.post(s + 1);
  return "";
}

using Body = std::function<std::string(int rank, NetProxy& proxy, ThreadWorld& world)>;

std::string RunTwo(const Body& body) {
  ThreadWorld world({0, 1}, NewUnique());
  std::string errors[2];
  std::thread threads[2];
  for (int r = 0; r < 2; ++r) {
    threads[r] = std::thread([&, r] {
      ThreadLink link(world, r);
      auto proxy = NetProxy::Create(link, 20, Policy());
      if (!proxy.ok()) {
        errors[r] = proxy.status().ToString();
        return;
      }
      errors[r] = body(r, **proxy, world);
    });
  }
  for (auto& t : threads) t.join();
  return errors[0] + (errors[1].empty() ? "" : " / rank 1: " + errors[1]);
}

TEST(NetProxy, StepsArriveInOrderRoundTheFifo) {
  constexpr uint64_t kSteps = 300;
  EXPECT_EQ(RunTwo([](int rank, NetProxy& proxy, ThreadWorld&) -> std::string {
              // Both directions at once: rank 0 -> 1 and 1 -> 0.
              auto out = proxy.AddFifo(1 - rank, true, NetProxy::EdgeId(1, 0, rank), kBuffer);
              auto in = proxy.AddFifo(1 - rank, false, NetProxy::EdgeId(1, 0, 1 - rank), kBuffer);
              if (!out.ok() || !in.ok()) return "AddFifo failed";
              uint64_t sent = 0, got = 0;
              const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
              while (got < kSteps) {
                if (std::chrono::steady_clock::now() > end) {
                  return "timed out with " + std::to_string(sent) + " steps sent and " + std::to_string(got) +
                         " received";
                }
                if ((*in)->failed.load() && (*in)->header.tail.load() <= got) {
                  return "receive failed after " + std::to_string(got) + " steps: " + (*in)->error.ToString();
                }
                if (sent < kSteps && SlotFree(sent, (*out)->header.head.load())) {
                  if (!SendStep(proxy, **out, sent++)) return "send failed: " + (*out)->error.ToString();
                }
                if ((*in)->header.tail.load() > got) {
                  if (std::string e = RecvStep(proxy, **in, got++); !e.empty()) return e;
                }
                proxy.Poll();
              }
              while (sent < kSteps) {
                if (!SendStep(proxy, **out, sent++)) return "send failed";
              }
              return "";
            }),
            "");
}

TEST(NetProxy, PublishedStepsArriveAfterStop) {
  EXPECT_EQ(RunTwo([](int rank, NetProxy& proxy, ThreadWorld& world) -> std::string {
              if (rank == 0) {
                auto out = proxy.AddFifo(1, true, kId, kBuffer);
                if (!out.ok()) return out.status().ToString();
                for (uint64_t s = 0; s < kFifoSteps; ++s) {
                  if (!SendStep(proxy, **out, s)) return "send failed";
                }
                proxy.Stop();  // sends what is published before it closes
                char done = 1;
                std::vector<char> all(2);
                return world.AllGather(0, &done, 1, all.data()).ok() ? "" : "allgather failed";
              }
              auto in = proxy.AddFifo(0, false, kId, kBuffer);
              if (!in.ok()) return in.status().ToString();
              for (uint64_t s = 0; s < kFifoSteps; ++s) {
                if (std::string e = RecvStep(proxy, **in, s); !e.empty()) return e;
              }
              char done = 1;
              std::vector<char> all(2);
              (void)world.AllGather(1, &done, 1, all.data());
              return "";
            }),
            "");
}

// Steps published inside a call that had not left when the call ended go
// out by the progress thread while the executor is elsewhere (here blocked in
// an all-gather). The receiver starts only once the sender is outside, so 8
// steps of 1 MiB cannot all have left during the call.
TEST(NetProxy, ThreadSendsWhatACallLeftUnsent) {
  constexpr uint64_t kBig = kFifoSteps * (uint64_t{1} << 20);
  static std::atomic<bool> left{false};
  left = false;
  EXPECT_EQ(RunTwo([&](int rank, NetProxy& proxy, ThreadWorld& world) -> std::string {
              std::vector<char> all(2);
              char one = 1;
              auto fifo = proxy.AddFifo(1 - rank, rank == 0, kId, kBig);
              if (!fifo.ok()) return fifo.status().ToString();
              NetFifo& f = **fifo;
              const uint64_t step_bytes = kBig / kFifoSteps;
              if (rank == 0) {
                proxy.Enter();
                for (uint64_t s = 0; s < kFifoSteps; ++s) {
                  std::byte* slot = f.Slot(s);
                  for (uint64_t i = 0; i < step_bytes; ++i) slot[i] = ByteOf(s, i);
                  f.sizes[s] = static_cast<uint32_t>(step_bytes);
                  f.header.tail.post(s + 1);
                  proxy.Kick();
                }
                proxy.Leave();
                left = true;
                return world.AllGather(0, &one, 1, all.data()).ok() ? "" : "allgather failed";
              }
              while (!left) std::this_thread::yield();
              for (uint64_t s = 0; s < kFifoSteps; ++s) {
                if (!WaitFor(proxy, [&] { return f.header.tail.load() > s || f.failed.load(); })) return "timed out";
                if (f.failed.load()) return f.error.ToString();
                if (f.sizes[s] != step_bytes)
                  return "step " + std::to_string(s) + " carried " + std::to_string(f.sizes[s]);
                const std::byte* slot = f.Slot(s);
                for (uint64_t i = 0; i < step_bytes; ++i) {
                  if (slot[i] != ByteOf(s, i))
                    return "step " + std::to_string(s) + " byte " + std::to_string(i) + " differs";
                }
                f.header.head.post(s + 1);
              }
              (void)world.AllGather(1, &one, 1, all.data());
              return "";
            }),
            "");
}

TEST(NetProxy, PeerGoneFailsTheFifoNamingIt) {
  EXPECT_EQ(RunTwo([](int rank, NetProxy& proxy, ThreadWorld& world) -> std::string {
              std::vector<char> all(2);
              char one = 1;
              if (rank == 1) {
                proxy.Stop();  // its endpoints close
                (void)world.AllGather(1, &one, 1, all.data());
                return "";
              }
              auto out = proxy.AddFifo(1, true, kId, kBuffer);
              if (!out.ok()) return out.status().ToString();
              (void)world.AllGather(0, &one, 1, all.data());
              // Sends to a closed peer: the endpoint fails, the FIFO with it.
              for (uint64_t s = 0; s < 1000 && !(*out)->failed.load(); ++s) {
                if (!SendStep(proxy, **out, s)) break;
              }
              if (!WaitFor(proxy, [&] { return (*out)->failed.load(); })) return "the FIFO did not fail";
              const std::string why = (*out)->error.ToString();
              if (why.find("rank 1 (test host 1)") == std::string::npos) return "error does not name the peer: " + why;
              return "";
            }),
            "");
}

}  // namespace
}  // namespace gpurun::coll
