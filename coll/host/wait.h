// Waits of the host executor: poll a condition, spinning first and then
// backing off (p2p::Backoff), check the peer waited on every kPollsPerCheck
// polls (CommLink::CheckPeer: a dead or aborted peer is grRemoteError naming
// it) and give up after GPURUN_TIMEOUT with grTimeout naming the collective,
// algorithm, protocol, channel, step and peer; from kOtherRanksCheckS on, a
// failed rank elsewhere in the communicator also ends it (naming that rank).
// While the backoff sleeps,
// every poll checks (polls are then microseconds apart). On a communicator
// with NET edges each check also runs a pass of its NET proxy (the executor
// moves the NET steps while it is inside a call, net_proxy.h).
#ifndef GPURUN_COLL_HOST_WAIT_H_
#define GPURUN_COLL_HOST_WAIT_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "coll/coll_types.h"
#include "coll/host/comm_link.h"
#include "p2p/backoff.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

class NetProxy;
// NetProxy::Poll (net_proxy.h), for the waits below.
void PollNetProxy(NetProxy& proxy);

// What a wait names in its errors, and how it waits.
struct WaitSite {
  CommLink* link = nullptr;
  Func func = Func::kAllReduce;
  Algo algo = Algo::kRing;
  Protocol proto = Protocol::kSimple;
  int channel = 0;
  double timeout_s = 0;  // 0: forever
  p2p::Backoff::Policy policy{};
  NetProxy* net = nullptr;  // the communicator's NET proxy, if it has one: run at each check
};

// Polls between two peer/clock checks (a poll is ~10-100 ns).
inline constexpr uint32_t kPollsPerCheck = 64;
// Polls of a wait before its first clock reading and backoff step.
inline constexpr uint32_t kQuickPolls = 256;
// The same for a wait on a NET FIFO, none: each of its polls is a proxy pass
// (UCX worker progress: a system call over TCP), 1.6-1.9 us each on the
// 2-core test VM (counted in gpurun-bench allreduce 8 B across 2 virtual
// nodes), so 256 of them spun ~0.45 ms before the backoff could give the
// core to a peer waiting for it; a clock reading is ~50x cheaper than a pass.
inline constexpr uint32_t kNetQuickPolls = 0;

// Once a wait has lasted this long, and as often again while it lasts, it
// also checks the communicator's other ranks: a rank that died elsewhere in
// a ring or tree stops the steps coming round while the awaited peer lives
// on (itself failed and waiting, or gone), and the wait would otherwise end
// only at GPURUN_TIMEOUT, naming a live rank.
inline constexpr double kOtherRanksCheckS = 0.1;

// OkStatus, or the failure of a rank of site.link other than this one and
// `peer` (CommLink::CheckPeer), saying so.
Status CheckOtherRanks(const WaitSite& site, int peer);

// The error for a wait that failed: "<func> <algo>/<proto> channel <c> step <s>: <what> <peer>: <cause>".
Status WaitError(const WaitSite& site, int peer, uint64_t step, const char* what, const Status& cause);
Status WaitTimeout(const WaitSite& site, int peer, uint64_t step, const char* what);

// One spin-wait hint between polls (x86 PAUSE).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// WaitUntil past its first poll (not inlined: the hot path is the first poll).
template <typename Ready>
[[gnu::noinline]] Status WaitUntilSlow(const WaitSite& site, int peer, uint64_t step, const char* what, Ready&& ready,
                                       uint32_t quick_polls = kQuickPolls) {
  // Most waits of a pipelined small collective end within a cache-line
  // transfer or two: poll that long before anything reads the clock (two
  // clock reads per wait were 16 % of an 8-byte bcast's time; issue 4).
  for (uint32_t polls = 0; polls < quick_polls; ++polls) {
    if (ready()) return OkStatus();
    CpuRelax();
  }
  p2p::Backoff backoff(site.policy);
  const auto start = std::chrono::steady_clock::now();
  double others_at = kOtherRanksCheckS;  // seconds waited at the next check of the other ranks
  for (uint32_t polls = 1;; ++polls) {
    if (ready()) return OkStatus();
    // Sleeping polls are microseconds apart already: check at each of them.
    if (polls % kPollsPerCheck == 0 || backoff.phase() == p2p::Backoff::Phase::kSleep) {
      if (site.net != nullptr) PollNetProxy(*site.net);
      if (Status s = site.link->CheckPeer(peer); !s.ok()) return WaitError(site, peer, step, what, s);
      if (ready()) return OkStatus();
      const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
      if (site.timeout_s > 0 && waited.count() > site.timeout_s) return WaitTimeout(site, peer, step, what);
      if (waited.count() >= others_at) {
        others_at = waited.count() + kOtherRanksCheckS;
        if (Status s = CheckOtherRanks(site, peer); !s.ok()) return WaitError(site, peer, step, what, s);
      }
    }
    backoff.Pause();
  }
}

// Returns once ready() is true. `what` says what is awaited ("data from").
template <typename Ready>
inline Status WaitUntil(const WaitSite& site, int peer, uint64_t step, const char* what, Ready&& ready) {
  if (ready()) [[likely]]
    return OkStatus();
  return WaitUntilSlow(site, peer, step, what, ready);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_WAIT_H_
