// NetProxy (net_proxy.h): setup, the progress thread, one pass over the
// FIFOs, and the stop.
#include "coll/host/net_proxy.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "coll/host/fifo_sizes.h"
#include "coll/host/net_open.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// The longest Stop waits for published steps to leave (GPURUN_TIMEOUT when shorter).
constexpr double kStopDrainS = 30;

// Every step message has its receive posted before it can be sent (a slot
// is free on both sides), so steps go eager: no rendezvous round trip. Up to
// four times the largest step (Simple's 64 KiB), leaving room for a larger
// FIFO. Over TCP loopback (2 ranks on 2 simulated nodes, ring/Simple
// allreduce) RNDV_THRESH=64k left the 64 KiB steps on rendezvous: 1 MiB
// took 537 us, 2 MiB 1129; with 256k 423 and 844, 1m 399 and 822; oneshot's
// single 32 KiB message 20.7 us by default, 11.3 with 256k.
constexpr uint64_t kNetEagerBytes = 4 * kHostMaxStepDataBytes;

// Passes in a row that move nothing, with a receive posted, before a receive
// FIFO whose peer's endpoint failed fails (MayStillArrive).
constexpr int kGoneIdlePasses = 4;

uint64_t TagOf(uint64_t id, uint64_t step) { return id << 32 | (step & 0xFFFFFFFFull); }

}  // namespace

struct NetProxy::Moving {
  NetFifo fifo;
  uint64_t posted = 0;       // steps handed to UCX
  uint64_t done = 0;         // steps UCX completed (head for sends, tail for receives)
  int idle_after_error = 0;  // passes in a row without movement since the peer's endpoint failed
  p2p::UcxNetOp ops[kFifoSteps];
};

NetProxy::NetProxy(CommLink& link, double timeout_s, p2p::Backoff::Policy policy)
    : link_(link), timeout_s_(timeout_s), policy_(policy) {}

NetProxy::~NetProxy() { Stop(); }

StatusOr<std::unique_ptr<NetProxy>> NetProxy::Create(CommLink& link, double timeout_s, p2p::Backoff::Policy policy) {
  std::unique_ptr<NetProxy> proxy(new NetProxy(link, timeout_s, policy));
  GR_ASSIGN_OR_RETURN(proxy->net_, OpenNetToPeers(link, kNetEagerBytes));
  proxy->thread_ = std::thread([p = proxy.get()] { p->Run(); });
  GR_LOG(Info, Net) << "collective NET proxy started: UCX endpoints to " << link.size() - 1 << " rank(s)";
  return proxy;
}

StatusOr<NetFifo*> NetProxy::AddFifo(int peer, bool send, uint64_t id, uint64_t buffer_bytes, uint64_t first_step) {
  auto moving = std::make_unique<Moving>();
  NetFifo& f = moving->fifo;
  f.peer = peer;
  f.send = send;
  f.id = id;
  f.step_bytes = buffer_bytes / kFifoSteps;
  f.buffer = std::make_unique<std::byte[]>(buffer_bytes);
  // LL steps on NET are read once they arrived whole (HostWire::UnpackSlot
  // checks every line's flag), so what a slot held before never matters.
  std::memset(f.buffer.get(), 0, buffer_bytes);
  f.header.head.clear();
  f.header.tail.clear();
  if (first_step != 0) {
    f.header.head.post(first_step);
    f.header.tail.post(first_step);
    moving->posted = moving->done = first_step;
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return InternalError("collective NET proxy: a FIFO added after Stop");
  fifos_.push_back(std::move(moving));
  NetFifo* fifo = &fifos_.back()->fifo;
  PassLocked();  // post the receives now
  return fifo;
}

void NetProxy::Fail(Moving& m, const Status& why) {
  if (m.fifo.failed.load(std::memory_order_relaxed)) return;
  m.fifo.error = why;
  m.fifo.failed.store(true, std::memory_order_release);
  GR_LOG(Info, Net) << "collective NET " << (m.fifo.send ? "send to " : "receive from ")
                    << link_.DescribePeer(m.fifo.peer) << " failed: " << why.message();
}

bool NetProxy::MoveSend(Moving& m) {
  NetFifo& f = m.fifo;
  bool moved = false;
  // Completions first (they free slots to post into), then posts, then the
  // completions of those: a small send UCX completes inline is credited in
  // the same pass, so the executor leaving a call finds nothing unsent.
  for (int round = 0; round < 2; ++round) {
    while (m.done < m.posted) {
      bool complete = false;
      if (Status s = net_->Test(&m.ops[m.done % kFifoSteps], &complete); !s.ok()) {
        Fail(m, s);
        return true;
      }
      if (!complete) break;
      f.header.head.post(++m.done);
      moved = true;
    }
    if (round == 1) break;
    const uint64_t tail = f.header.tail.load();
    if (m.posted >= tail || m.posted >= m.done + kFifoSteps) break;
    while (m.posted < tail && m.posted < m.done + kFifoSteps) {
      const uint64_t step = m.posted;
      const uint32_t bytes = f.sizes[step % kFifoSteps];
      if (Status s = net_->Send(f.peer, TagOf(f.id, step), f.Slot(step), bytes, &m.ops[step % kFifoSteps]); !s.ok()) {
        Fail(m, s);
        return true;
      }
      ++m.posted;
      moved = true;
    }
  }
  return moved;
}

bool NetProxy::MoveRecv(Moving& m) {
  NetFifo& f = m.fifo;
  bool moved = false;
  while (m.done < m.posted) {
    p2p::UcxNetOp& op = m.ops[m.done % kFifoSteps];
    bool complete = false;
    if (Status s = net_->Test(&op, &complete); !s.ok()) {
      Fail(m, s);
      return true;
    }
    if (!complete) break;
    f.sizes[m.done % kFifoSteps] = static_cast<uint32_t>(op.bytes);
    f.header.tail.post(++m.done);
    moved = true;
  }
  const uint64_t limit = f.header.head.load() + kFifoSteps;
  while (m.posted < limit) {
    const uint64_t step = m.posted;
    if (Status s = net_->Recv(f.peer, TagOf(f.id, step), f.Slot(step), f.step_bytes, &m.ops[step % kFifoSteps]);
        !s.ok()) {
      Fail(m, s);
      return true;
    }
    ++m.posted;
    moved = true;
  }
  return moved;
}

bool NetProxy::PassLocked() {
  if (!net_) return false;
  // Sends first: a step the executor just published (Kick) leaves before the
  // worker progress, a system call over TCP, delays it.
  bool moved = false;
  for (auto& m : fifos_) {
    if (m->fifo.send && !m->fifo.failed.load(std::memory_order_relaxed)) moved |= MoveSend(*m);
  }
  moved |= net_->Progress();
  for (auto& m : fifos_) {
    if (m->fifo.failed.load(std::memory_order_relaxed)) continue;
    // What arrived before a failure still counts: move first, then look.
    const bool here = m->fifo.send ? MoveSend(*m) : MoveRecv(*m);
    moved |= here;
    if (Status s = net_->PeerError(m->fifo.peer); !s.ok() && !MayStillArrive(*m, here)) Fail(*m, s);
  }
  return moved;
}

bool NetProxy::MayStillArrive(Moving& m, bool moved) {
  // A send to a failed peer fails at once. A peer that ended (closed its
  // endpoint after its sends completed locally) may have left steps that
  // wait in UCX for a receive this side posts only once the executor frees
  // their slots; they match the moment it is posted. So a receive fails only
  // after kGoneIdlePasses passes in a row that moved nothing while a posted
  // receive stayed open; while every posted receive is complete it waits for
  // the executor.
  if (m.fifo.send) return false;
  if (moved || m.done == m.posted) {
    m.idle_after_error = 0;
    return true;
  }
  return ++m.idle_after_error < kGoneIdlePasses;
}

void NetProxy::Leave() {
  inside_.store(false, std::memory_order_release);
  // fifos_ changes only on this thread (AddFifo); head and tail are atomics.
  for (const auto& m : fifos_) {
    const NetFifo& f = m->fifo;
    if (!f.send || f.failed.load(std::memory_order_relaxed) || f.header.head.load() >= f.header.tail.load()) continue;
    {
      std::lock_guard<std::mutex> lock(wake_mu_);
      handovers_.fetch_add(1, std::memory_order_relaxed);
    }
    wake_cv_.notify_one();
    return;
  }
}

void NetProxy::Run() {
  p2p::Backoff backoff(policy_);
  uint64_t served = 0;
  for (;;) {
    uint64_t handover;
    {
      std::unique_lock<std::mutex> lock(wake_mu_);
      wake_cv_.wait(lock, [&] {
        return stop_.load(std::memory_order_relaxed) ||
               (handovers_.load(std::memory_order_relaxed) != served && !inside_.load(std::memory_order_acquire));
      });
      if (stop_.load(std::memory_order_relaxed)) return;
      handover = handovers_.load(std::memory_order_relaxed);
    }
    // Until the steps are sent, or the executor is back (it moves them then).
    backoff.Reset();
    while (!stop_.load(std::memory_order_relaxed) && !inside_.load(std::memory_order_acquire)) {
      bool moved;
      bool drained;
      {
        std::lock_guard<std::mutex> lock(mu_);
        moved = PassLocked();
        drained = SendsDrained();
      }
      if (drained) {
        served = handover;
        break;
      }
      if (moved) {
        backoff.Reset();
      } else {
        backoff.Pause();
      }
    }
  }
}

bool NetProxy::SendsDrained() const {
  for (const auto& m : fifos_) {
    if (!m->fifo.send || m->fifo.failed.load(std::memory_order_relaxed)) continue;
    if (m->done < m->fifo.header.tail.load()) return false;
  }
  return true;
}

void NetProxy::Stop() {
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(wake_mu_);
      stop_.store(true, std::memory_order_release);
    }
    wake_cv_.notify_one();
    thread_.join();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  stopped_ = true;
  if (!net_) return;
  // Steps the executor published must still reach their peers, which may be
  // waiting for them; a failed peer's are dropped.
  const double limit = timeout_s_ > 0 ? std::min(timeout_s_, kStopDrainS) : kStopDrainS;
  const auto start = std::chrono::steady_clock::now();
  while (!SendsDrained()) {
    PassLocked();
    // A peer the runtime knows dead (it died, or aborted) takes nothing more.
    for (auto& m : fifos_) {
      if (!m->fifo.send || m->fifo.failed.load() || m->done >= m->fifo.header.tail.load()) continue;
      if (Status s = link_.CheckPeer(m->fifo.peer); !s.ok()) Fail(*m, s);
    }
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
    if (waited.count() > limit) {
      for (const auto& m : fifos_) {
        if (m->fifo.send && !m->fifo.failed.load() && m->done < m->fifo.header.tail.load()) {
          GR_LOG(Warn, Net) << "collective NET proxy: " << m->fifo.header.tail.load() - m->done << " step(s) to "
                            << link_.DescribePeer(m->fifo.peer) << " not sent after " << limit << " s; dropping them";
        }
      }
      break;
    }
  }
  for (auto& m : fifos_) {
    for (p2p::UcxNetOp& op : m->ops) net_->Cancel(&op);
  }
  net_->Close(2.0);
  net_.reset();
}

void PollNetProxy(NetProxy& proxy) { proxy.Poll(); }

}  // namespace gpurun::coll
