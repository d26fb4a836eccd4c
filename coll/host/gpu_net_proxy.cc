// GpuNetProxy (gpu_net_proxy.h): set-up, one pass over the edges, the
// thread and the stop.
#include "coll/host/gpu_net_proxy.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "coll/host/net_open.h"
#include "coll/wire_format.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

using namespace std::chrono_literals;

// The thread spins this long after a step moved or a Wake, then sleeps up
// to kMaxSleep between passes (p2p::Backoff, which lengthens sleeps after
// a long idle time).
constexpr auto kSpin = 2ms;
constexpr auto kMaxSleep = 50us;

// Steps go eager up to this size (their receives are posted beforehand,
// as the host proxy's: net_proxy.cc): the default Simple step of the GPU
// ring's 4 MiB FIFO is 512 KiB.
constexpr uint64_t kGpuNetEagerBytes = 512 * 1024;

constexpr uint64_t kLLTagBit = uint64_t{1} << 63;
constexpr uint64_t kHeaderTagBit = uint64_t{1} << 62;

// Bits 0..31 the step, 32..53 the sender, 54..61 the edge; 62 header, 63 LL.
uint64_t TagOf(uint32_t edge, int sender, uint64_t step) {
  const uint64_t id = static_cast<uint64_t>(edge) << 22 | static_cast<uint64_t>(sender);
  return id << 32 | (step & 0xFFFFFFFFull);
}

uint64_t LoadAcquire(const uint8_t* at) {
  return wire_host::Load(reinterpret_cast<const uint64_t*>(at), std::memory_order_acquire);
}
void StoreRelease(uint8_t* at, uint64_t value) {
  wire_host::Store(reinterpret_cast<uint64_t*>(at), value, std::memory_order_release);
}

}  // namespace

struct GpuNetProxy::Moving {
  GpuNetEdge edge;
  uint64_t posted = 0;  // steps handed to UCX
  uint64_t done = 0;    // steps UCX completed (head for sends, tail for receives)
  int idle_after_error = 0;
  bool failed = false;
  p2p::UcxNetOp ops[kFifoSteps];
  p2p::UcxNetOp header_ops[kFifoSteps];  // point-to-point edges: the step headers

  uint8_t* Simple(uint64_t step) const {
    return edge.base + GpuNetLayout::kFifo + SlotOffset(step, edge.layout.buffer_bytes);
  }
  uint8_t* LL(uint64_t step) const {
    return edge.base + edge.layout.LLFifo() + SlotOffset(step, edge.layout.ll_buffer_bytes);
  }
  uint32_t* Sizes() const { return reinterpret_cast<uint32_t*>(edge.base + GpuNetLayout::kSizes); }
  uint8_t* Header(uint64_t step) const {
    return edge.base + GpuNetLayout::kHeaders + (step % kFifoSteps) * GpuNetLayout::kHeaderBytes;
  }
};

bool IsNetPeer(CommLink& link, int peer) {
  return params::kCollNet.Get() == params::kCollNetAlways || !link.SameHost(peer);
}

GpuNetProxy::GpuNetProxy(CommLink& link, uint32_t* abort) : link_(link), abort_(abort) {}

StatusOr<std::unique_ptr<GpuNetProxy>> GpuNetProxy::Create(CommLink& link, uint32_t* abort) {
  std::unique_ptr<GpuNetProxy> proxy(new GpuNetProxy(link, abort));
  GR_ASSIGN_OR_RETURN(proxy->net_, OpenNetToPeers(link, kGpuNetEagerBytes));
  proxy->thread_ = std::thread([p = proxy.get()] { p->Run(); });
  // A UCX built with CUDA could send device memory itself (NCCL's GDR);
  // the steps go through host memory either way for now.
  GR_LOG(Info, Net) << "GPU NET proxy started: UCX endpoints to " << link.size() - 1 << " rank(s); this UCX "
                    << (proxy->net_->SupportsCudaMemory()
                            ? "supports CUDA memory (unused: steps are staged in host memory)"
                            : "has no CUDA support: steps are staged in host memory");
  return proxy;
}

StatusOr<std::unique_ptr<GpuNetProxy>> GpuNetProxy::CreateUnconnected(CommLink& link, uint32_t* abort) {
  std::unique_ptr<GpuNetProxy> proxy(new GpuNetProxy(link, abort));
  GR_ASSIGN_OR_RETURN(proxy->net_, p2p::UcxNet::Open(kGpuNetEagerBytes));
  proxy->thread_ = std::thread([p = proxy.get()] { p->Run(); });
  return proxy;
}

std::vector<std::byte> GpuNetProxy::Address() {
  std::lock_guard<std::mutex> lock(mu_);
  return net_ ? net_->Address() : std::vector<std::byte>{};
}

Status GpuNetProxy::Connect(int peer, const std::vector<std::byte>& address) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!net_) return InternalError("GPU NET proxy: a connection after Stop");
  return net_->Connect(peer, address, link_.DescribePeer(peer));
}

GpuNetProxy::~GpuNetProxy() { Stop(); }

Status GpuNetProxy::AddEdge(const GpuNetEdge& edge) {
  const GpuNetLayout& l = edge.layout;
  if (edge.p2p && (!IsValidBufferBytes(Protocol::kSimple, l.buffer_bytes) || l.ll_buffer_bytes != 0)) {
    return InvalidArgument("GPU NET point-to-point connection: a FIFO of " + std::to_string(l.buffer_bytes) +
                           " B does not split into 8 steps, or it has an LL FIFO");
  }
  if (!edge.p2p && (!IsValidBufferBytes(Protocol::kSimple, l.buffer_bytes) ||
                    !IsValidBufferBytes(Protocol::kLL, l.ll_buffer_bytes) ||
                    StepBytes(l.ll_buffer_bytes) > StepBytes(l.buffer_bytes))) {
    return InvalidArgument("GPU NET connection: FIFOs of " + std::to_string(l.buffer_bytes) + " B (Simple) and " +
                           std::to_string(l.ll_buffer_bytes) +
                           " B (LL) do not split into 8 steps each, or an LL step is larger than a Simple one");
  }
  if (edge.edge >= kMaxEdges || edge.peer < 0 || edge.peer >= link_.size() || link_.size() > kMaxRanks ||
      edge.base == nullptr) {
    return InvalidArgument("GPU NET connection " + std::to_string(edge.edge) + " to rank " + std::to_string(edge.peer) +
                           ": no such edge, peer or memory");
  }
  auto m = std::make_unique<Moving>();
  m->edge = edge;
  m->posted = m->done = edge.first_step;
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return InternalError("GPU NET proxy: an edge added after Stop");
  edges_.push_back(std::move(m));
  PassLocked();  // post the receives now
  return OkStatus();
}

void GpuNetProxy::RemoveOwner(const void* owner) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = edges_.begin(); it != edges_.end();) {
    if ((*it)->edge.owner != owner) {
      ++it;
      continue;
    }
    if (net_) CancelOps(**it);
    it = edges_.erase(it);
  }
}

void GpuNetProxy::CancelOps(Moving& m) {
  for (p2p::UcxNetOp& op : m.ops) net_->Cancel(&op);
  for (p2p::UcxNetOp& op : m.header_ops) net_->Cancel(&op);
}

Status GpuNetProxy::failure() const {
  std::lock_guard<std::mutex> lock(failure_mu_);
  return failure_;
}

void GpuNetProxy::Fail(Moving& m, const Status& why) {
  if (m.failed) return;
  m.failed = true;
  const std::string name = "GPU NET connection " + std::to_string(m.edge.edge) + (m.edge.send ? " to " : " from ") +
                           link_.DescribePeer(m.edge.peer);
  if (quiet_.load(std::memory_order_acquire)) {
    GR_LOG(Trace, Net) << name << " ended after the last collective: " << why.message();
    return;
  }
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(failure_mu_);
    if (failure_.ok()) {
      failure_ = RemoteError(name + " failed: " + std::string(why.message()));
      first = true;
    }
  }
  std::atomic_ref<uint32_t>(*abort_).store(1, std::memory_order_release);
  // One warning per proxy; the other connections that fail with it at INFO.
  const std::string what = name + " failed; the GPU collectives are aborted: " + std::string(why.message());
  if (first) {
    GR_LOG(Warn, Net) << what;
  } else {
    GR_LOG(Info, Net) << what;
  }
}

bool GpuNetProxy::StepDone(Moving& m, uint64_t step, bool* done) {
  *done = false;
  for (p2p::UcxNetOp* op : {&m.ops[step % kFifoSteps], &m.header_ops[step % kFifoSteps]}) {
    if (!op->active) continue;  // completed (or, for a header, none on this edge)
    bool complete = false;
    if (Status s = net_->Test(op, &complete); !s.ok()) {
      Fail(m, s);
      return false;
    }
    if (!complete) return true;
  }
  *done = true;
  return true;
}

bool GpuNetProxy::MoveSend(Moving& m) {
  bool moved = false;
  uint8_t* base = m.edge.base;
  // Completions free slots (head), then the posted steps go out, then the
  // completions of those (a small send UCX completes inline).
  for (int round = 0; round < 2; ++round) {
    while (m.done < m.posted) {
      bool complete = false;
      if (!StepDone(m, m.done, &complete)) return true;
      if (!complete) break;
      StoreRelease(base + GpuNetLayout::kHead, ++m.done);
      moved = true;
    }
    if (round == 1) break;
    const uint64_t tail = LoadAcquire(base + GpuNetLayout::kTail);
    while (m.posted < tail && m.posted < m.done + kFifoSteps) {
      const uint64_t step = m.posted;
      const uint32_t word = std::atomic_ref<uint32_t>(m.Sizes()[step % kFifoSteps]).load(std::memory_order_relaxed);
      const bool ll = (word & kNetStepLL) != 0;
      const uint64_t bytes = word & ~kNetStepLL;
      const uint64_t room = StepBytes(ll ? m.edge.layout.ll_buffer_bytes : m.edge.layout.buffer_bytes);
      if (bytes > room) {
        Fail(m, InternalError("the kernel posted step " + std::to_string(step) + " of " + std::to_string(bytes) +
                              " B, more than its " + std::to_string(room) + " B slot"));
        return true;
      }
      const uint64_t tag = TagOf(m.edge.edge, link_.rank(), step) | (ll ? kLLTagBit : 0);
      if (m.edge.p2p) {
        if (Status s = net_->Send(m.edge.peer, tag | kHeaderTagBit, m.Header(step), GpuNetLayout::kHeaderBytes,
                                  &m.header_ops[step % kFifoSteps]);
            !s.ok()) {
          Fail(m, s);
          return true;
        }
      }
      if (Status s = net_->Send(m.edge.peer, tag, ll ? m.LL(step) : m.Simple(step), bytes, &m.ops[step % kFifoSteps]);
          !s.ok()) {
        Fail(m, s);
        return true;
      }
      ++m.posted;
      moved = true;
    }
  }
  return moved;
}

bool GpuNetProxy::MoveRecv(Moving& m) {
  bool moved = false;
  uint8_t* base = m.edge.base;
  while (m.done < m.posted) {
    p2p::UcxNetOp& op = m.ops[m.done % kFifoSteps];
    bool complete = false;
    if (!StepDone(m, m.done, &complete)) return true;
    if (!complete) break;
    if ((op.tag & kLLTagBit) != 0) {
      if (op.bytes % sizeof(LLLine) != 0 || op.bytes > StepBytes(m.edge.layout.ll_buffer_bytes)) {
        Fail(m, InternalError("an LL step of " + std::to_string(op.bytes) + " B arrived: not whole lines of a slot"));
        return true;
      }
      const auto* from = reinterpret_cast<const uint64_t*>(m.Simple(m.done));
      auto* to = reinterpret_cast<uint64_t*>(m.LL(m.done));
      for (size_t i = 0; i < op.bytes / sizeof(uint64_t); ++i)
        wire_host::Store(to + i, from[i], std::memory_order_relaxed);
    }
    StoreRelease(base + GpuNetLayout::kTail, ++m.done);
    moved = true;
  }
  // The kernel may release a step before it arrived (an LL step with no
  // lines has nothing to wait for), so head alone does not bound what is in
  // flight: a slot's receive is posted again only once its last one completed.
  const uint64_t limit = std::min(LoadAcquire(base + GpuNetLayout::kHead), m.done) + kFifoSteps;
  while (m.posted < limit) {
    const uint64_t step = m.posted;
    const uint64_t tag = TagOf(m.edge.edge, m.edge.peer, step);
    if (m.edge.p2p) {
      if (Status s = net_->Recv(m.edge.peer, tag | kHeaderTagBit, m.Header(step), GpuNetLayout::kHeaderBytes,
                                &m.header_ops[step % kFifoSteps]);
          !s.ok()) {
        Fail(m, s);
        return true;
      }
    }
    // A ring step may be LL or Simple (the LL bit, read back); a
    // point-to-point one only Simple data.
    if (Status s = net_->Recv(m.edge.peer, tag, m.Simple(step), StepBytes(m.edge.layout.buffer_bytes),
                              &m.ops[step % kFifoSteps], m.edge.p2p ? ~uint64_t{0} : ~kLLTagBit);
        !s.ok()) {
      Fail(m, s);
      return true;
    }
    ++m.posted;
    moved = true;
  }
  return moved;
}

bool GpuNetProxy::PassLocked() {
  if (!net_) return false;
  bool moved = false;
  for (auto& m : edges_) {
    if (m->edge.send && !m->failed) moved |= MoveSend(*m);
  }
  moved |= net_->Progress();
  for (auto& m : edges_) {
    if (m->failed) continue;
    const bool here = m->edge.send ? MoveSend(*m) : MoveRecv(*m);
    moved |= here;
    Status s = net_->PeerError(m->edge.peer);
    if (s.ok()) continue;
    if (m->edge.send) {
      // Nothing to send yet: the failure counts once the kernel posts a step.
      if (m->done == m->posted && LoadAcquire(m->edge.base + GpuNetLayout::kTail) == m->posted) continue;
    } else if (here || ++m->idle_after_error < kGoneIdlePasses) {
      // A receive may still match a step that waits in UCX (net_proxy.cc
      // MayStillArrive): it fails only once passes stop moving anything.
      if (here) m->idle_after_error = 0;
      continue;
    }
    Fail(*m, s);
  }
  return moved;
}

void GpuNetProxy::Run() {
  p2p::Backoff backoff(p2p::Backoff::Policy{kSpin, 0ns, kMaxSleep});
  uint64_t wakes_seen = 0;
  while (!stop_.load(std::memory_order_acquire)) {
    bool moved;
    {
      std::lock_guard<std::mutex> lock(mu_);
      moved = PassLocked();
    }
    const uint64_t wakes = wakes_.load(std::memory_order_acquire);
    if (moved || wakes != wakes_seen) {
      wakes_seen = wakes;
      backoff.Reset();
    } else {
      backoff.Pause();
    }
  }
}

void GpuNetProxy::Stop() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return;
  stopped_ = true;
  if (!net_) return;
  for (auto& m : edges_) CancelOps(*m);
  net_->Close(2.0);
  net_.reset();
}

}  // namespace gpurun::coll
