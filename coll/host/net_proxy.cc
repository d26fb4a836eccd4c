// NetProxy (net_proxy.h): setup, the progress thread, one pass over the
// FIFOs, and the stop.
#include "coll/host/net_proxy.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// The longest Stop waits for published steps to leave (GPURUN_TIMEOUT when shorter).
constexpr double kStopDrainS = 30;

uint64_t TagOf(uint64_t id, uint64_t step) { return id << 32 | (step & 0xFFFFFFFFull); }

}  // namespace

struct NetProxy::Moving {
  NetFifo fifo;
  uint64_t posted = 0;  // steps handed to UCX
  uint64_t done = 0;    // steps UCX completed (head for sends, tail for receives)
  p2p::UcxNetOp ops[kFifoSteps];
};

NetProxy::NetProxy(CommLink& link, double timeout_s, p2p::Backoff::Policy policy)
    : link_(link), timeout_s_(timeout_s), policy_(policy) {}

NetProxy::~NetProxy() { Stop(); }

StatusOr<std::unique_ptr<NetProxy>> NetProxy::Create(CommLink& link, double timeout_s, p2p::Backoff::Policy policy) {
  std::unique_ptr<NetProxy> proxy(new NetProxy(link, timeout_s, policy));
  // Every rank takes part in both exchanges, also one whose UCX failed (it
  // publishes an empty address), so the others fail naming it.
  auto net = p2p::UcxNet::Open();
  std::vector<std::byte> mine;
  if (net.ok()) mine = (*net)->Address();
  const int n = link.size();
  const uint64_t length = mine.size();
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  GR_RETURN_IF_ERROR(link.AllGather(&length, sizeof(length), lengths.data()));
  const uint64_t widest = *std::max_element(lengths.begin(), lengths.end());
  mine.resize(widest);
  std::vector<std::byte> all(widest * static_cast<uint64_t>(n));
  GR_RETURN_IF_ERROR(link.AllGather(mine.data(), widest, all.data()));
  if (!net.ok()) return net.status();
  proxy->net_ = std::move(net).value();
  for (int r = 0; r < n; ++r) {
    if (r == link.rank()) continue;
    const auto* begin = all.data() + widest * static_cast<uint64_t>(r);
    std::vector<std::byte> address(begin, begin + lengths[static_cast<size_t>(r)]);
    GR_RETURN_IF_ERROR(proxy->net_->Connect(r, address, link.DescribePeer(r)));
  }
  proxy->thread_ = std::thread([p = proxy.get()] { p->Run(); });
  GR_LOG(Info, Net) << "collective NET proxy started: UCX endpoints to " << n - 1 << " rank(s)";
  return proxy;
}

StatusOr<NetFifo*> NetProxy::AddFifo(int peer, bool send, uint64_t id, uint64_t buffer_bytes) {
  auto moving = std::make_unique<Moving>();
  NetFifo& f = moving->fifo;
  f.peer = peer;
  f.send = send;
  f.id = id;
  f.step_bytes = buffer_bytes / kFifoSteps;
  f.buffer = std::make_unique<std::byte[]>(buffer_bytes);
  std::memset(f.buffer.get(), 0, buffer_bytes);  // LL: no stale flag can match (flags are never 0)
  f.header.head.clear();
  f.header.tail.clear();
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
  const uint64_t tail = f.header.tail.load();
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

uint64_t NetProxy::NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

bool NetProxy::PassLocked() {
  if (!net_) return false;
  last_pass_ns_.store(NowNs(), std::memory_order_relaxed);
  bool moved = net_->Progress();
  for (auto& m : fifos_) {
    if (m->fifo.failed.load(std::memory_order_relaxed)) continue;
    // What arrived before a failure still counts: move first, then look.
    moved |= m->fifo.send ? MoveSend(*m) : MoveRecv(*m);
    if (Status s = net_->PeerError(m->fifo.peer); !s.ok()) Fail(*m, s);
  }
  return moved;
}

void NetProxy::Run() {
  p2p::Backoff backoff(policy_);
  while (!stop_.load(std::memory_order_acquire)) {
    // Leave the passes to the executor while it runs them itself (Kick /
    // Poll): two threads taking turns at one lock on a host with fewer
    // cores than threads mostly wait for each other to be scheduled.
    if (NowNs() - last_pass_ns_.load(std::memory_order_relaxed) < kIdleBeforeThreadNs) {
      backoff.Pause();
      continue;
    }
    bool moved;
    {
      std::lock_guard<std::mutex> lock(mu_);
      moved = PassLocked();
    }
    if (moved) {
      backoff.Reset();
    } else {
      backoff.Pause();
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
    stop_.store(true, std::memory_order_release);
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

}  // namespace gpurun::coll
