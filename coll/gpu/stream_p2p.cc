// Stream-ordered point-to-point on GPU buffers (stream_p2p.h).
#include "coll/gpu/stream_p2p.h"

#include <cuda_runtime.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "coll/device/p2p_kernel.h"
#include "p2p/cuda_ipc/copy_kernel.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

using Clock = std::chrono::steady_clock;

// Receives with a status that may be pending on streams at once.
constexpr size_t kResultSlots = 1024;
// Between peer checks while the destructor waits for this communicator's kernels.
constexpr auto kPeerCheckEvery = std::chrono::microseconds(100);

uint32_t LoadVolatile(const uint32_t* p) { return *reinterpret_cast<const volatile uint32_t*>(p); }

Status FromDevError(const DevError& e, CommLink& link) {
  const std::string peer = link.DescribePeer(static_cast<int>(e.peer));
  const std::string channel = " on channel " + std::to_string(e.channel) + " (step " + std::to_string(e.step) +
                              ", counter at " + std::to_string(e.value) + ")";
  const std::string what = e.sending != 0
                               ? "a stream-ordered send to " + peer + " waited for it to free a FIFO slot" + channel
                               : "a stream-ordered receive from " + peer + " waited for its data" + channel;
  if (e.code == static_cast<uint32_t>(DevErrorCode::kTimeout)) {
    return TimeoutError(what + " for GPURUN_TIMEOUT (is the matching stream-ordered call missing?)");
  }
  return RemoteError(what + " and was aborted");
}

Status FromMessageError(const DevError& e, CommLink& link) {
  const std::string peer = link.DescribePeer(static_cast<int>(e.peer));
  if (e.code == kDevErrorTruncated) {
    return Status(grTruncated, "a stream-ordered receive from " + peer + " had room for " + std::to_string(e.value) +
                                   " bytes but the message has " + std::to_string(e.step) + " (the rest was dropped)");
  }
  return InvalidUsage(
      "a stream-ordered receive from " + peer + " wanted tag " + std::to_string(static_cast<int32_t>(e.step)) +
      " but the next stream-ordered message from it has tag " + std::to_string(static_cast<int32_t>(e.value)) +
      " (dropped: stream-ordered messages of a pair are received in the order sent)");
}

}  // namespace

StatusOr<StreamP2pOptions> LoadStreamP2pOptions(int connect_tag, int close_tag) {
  StreamP2pOptions o;
  o.nchannels = static_cast<int>(params::kP2pNChannels.Get());
  o.buffer_bytes = static_cast<uint64_t>(params::kP2pBuffSize.Get());
  o.self_copy_blocks = static_cast<int>(params::kP2pSelfCopyBlocks.Get());
  constexpr uint64_t kUnit = kFifoSteps * 4096;
  if (o.buffer_bytes % kUnit != 0) {
    return InvalidArgument("GPURUN_P2P_BUFFSIZE=" + std::to_string(o.buffer_bytes) + " is not a multiple of " +
                           std::to_string(kUnit) + " bytes");
  }
  o.timeout_s = params::kTimeout.Get();
  o.connect_tag = connect_tag;
  o.close_tag = close_tag;
  return o;
}

StatusOr<std::unique_ptr<StreamP2p>> StreamP2p::Create(CommLink& link, int device, const StreamP2pOptions& options) {
  std::unique_ptr<StreamP2p> p(new StreamP2p(link, device, options));
  GR_RETURN_IF_ERROR(p->Init());
  return p;
}

Status StreamP2p::Init() {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  const size_t bytes = 2 * sizeof(DevError) + 64 + kResultSlots * sizeof(DevP2pResult);
  void* host = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&host, bytes, cudaHostAllocMapped));
  std::memset(host, 0, bytes);
  auto* base = static_cast<char*>(host);
  error_ = reinterpret_cast<DevError*>(base);
  message_error_ = reinterpret_cast<DevError*>(base + sizeof(DevError));
  abort_ = reinterpret_cast<uint32_t*>(base + 2 * sizeof(DevError));
  results_ = reinterpret_cast<DevP2pResult*>(base + 2 * sizeof(DevError) + 64);
  slots_.reset(new ResultSlot[kResultSlots]);
  for (size_t i = 0; i < kResultSlots; ++i) {
    slots_[i].owner = this;
    slots_[i].result = &results_[i];
  }
  cudaEvent_t event = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  last_event_ = event;
  return OkStatus();
}

StreamP2p::~StreamP2p() {
  cudaSetDevice(device_);
  WaitIdle();
  // Our kernels ended: a peer past the goodbyes may close before this
  // thread runs on; that fails nothing now (a peer failing earlier fails
  // the goodbyes, which name it). The proxy still moves what is in flight.
  if (net_ != nullptr) net_->Quiesce();
  if (!connections_.empty()) SayGoodbye();
  connections_.clear();
  net_.reset();
  if (last_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(last_event_));
  if (side_stream_ != nullptr) {
    cudaStreamSynchronize(static_cast<cudaStream_t>(side_stream_));
    cudaStreamDestroy(static_cast<cudaStream_t>(side_stream_));
  }
  if (fork_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(fork_event_));
  if (join_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(join_event_));
  if (error_ != nullptr) cudaFreeHost(error_);
}

void StreamP2p::WaitIdle() {
  if (!any_call_) return;
  auto event = static_cast<cudaEvent_t>(last_event_);
  auto next_check = Clock::now() + kPeerCheckEvery;
  for (;;) {
    const cudaError_t q = cudaEventQuery(event);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) {
      GR_LOG(Warn, P2p) << "stream-ordered point-to-point teardown: " << cudaGetErrorString(q);
      return;
    }
    sched_yield();
    if (Clock::now() < next_check) continue;
    next_check = Clock::now() + kPeerCheckEvery;
    for (const auto& [peer, connection] : connections_) {
      if (Status s = link_.CheckPeer(peer); !s.ok() && LoadVolatile(abort_) == 0) {
        GR_LOG(Warn, P2p) << "stream-ordered point-to-point teardown: " << s.message()
                          << "; aborting this communicator's pending stream-ordered calls";
        *reinterpret_cast<volatile uint32_t*>(abort_) = 1;
      }
    }
  }
}

// Each peer may still write into this rank's buffer (a receiver releasing
// the last slot of a send) until its own kernels ended: one message each way
// per connection after both sides are idle.
void StreamP2p::SayGoodbye() {
  std::vector<LinkRequest*> requests;
  std::vector<char> inbox(connections_.size());
  const char bye = 1;
  size_t i = 0;
  for (const auto& [peer, connection] : connections_) {
    auto r = link_.Irecv(peer, opt_.close_tag, &inbox[i++], 1);
    if (r.ok()) requests.push_back(*r);
    auto s = link_.Isend(peer, opt_.close_tag, &bye, 1);
    if (s.ok()) requests.push_back(*s);
  }
  if (Status s = link_.WaitAll(requests, "stream-ordered point-to-point teardown"); !s.ok()) {
    GR_LOG(Warn, P2p) << s.message();
  }
}

Status StreamP2p::CheckErrors() {
  if (!broken_.empty()) [[unlikely]] {
    return InvalidUsage("this communicator's stream-ordered point-to-point stopped after an earlier error: " + broken_);
  }
  if (LoadVolatile(&error_->code) != 0) [[unlikely]] {
    std::atomic_thread_fence(std::memory_order_acquire);
    DevError e;
    std::memcpy(&e, error_, sizeof(e));
    Status status = FromDevError(e, link_);
    // The proxy aborts the kernels when a NET connection fails: say which.
    if (net_ != nullptr) {
      if (Status net = net_->failure(); !net.ok()) {
        status = RemoteError(std::string(net.message()) + "; " + std::string(status.message()));
      }
    }
    broken_ = status.message();
    return status;
  }
  if (LoadVolatile(&message_error_->code) != 0) [[unlikely]] {
    std::atomic_thread_fence(std::memory_order_acquire);
    DevError e;
    std::memcpy(&e, message_error_, sizeof(e));
    *reinterpret_cast<volatile uint32_t*>(&message_error_->code) = 0;
    return FromMessageError(e, link_);
  }
  return OkStatus();
}

StatusOr<P2pConnection*> StreamP2p::ConnectionTo(int peer) {
  auto it = connections_.find(peer);
  if (it != connections_.end()) return it->second.get();
  const bool net = IsNetPeer(link_, peer);
  if (net && net_ == nullptr) {
    GR_ASSIGN_OR_RETURN(net_, GpuNetProxy::CreateUnconnected(link_, abort_));
  }
  GR_ASSIGN_OR_RETURN(auto c, P2pConnection::Connect(link_, peer, device_, opt_.nchannels, opt_.buffer_bytes,
                                                     opt_.connect_tag, net ? net_.get() : nullptr));
  P2pConnection* raw = c.get();
  connections_.emplace(peer, std::move(c));
  return raw;
}

// The next call runs after what is on `stream` now (OrderAfterPrevious).
Status StreamP2p::MarkLast(void* stream) {
  GR_CUDA_RETURN_IF_ERROR(cudaEventRecord(static_cast<cudaEvent_t>(last_event_), static_cast<cudaStream_t>(stream)));
  last_stream_ = stream;
  any_call_ = true;
  return OkStatus();
}

Status StreamP2p::OrderAfterPrevious(void* stream) {
  if (!any_call_ || stream == last_stream_) return OkStatus();
  GR_CUDA_RETURN_IF_ERROR(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(last_event_), 0));
  return OkStatus();
}

Status StreamP2p::Run(const StreamSend* send, const StreamRecv* recv, void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  GR_RETURN_IF_ERROR(CheckErrors());
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  const int me = link_.rank();
  const bool self_send = send != nullptr && send->peer == me;
  const bool self_recv = recv != nullptr && recv->peer == me;
  if (self_send || self_recv) {
    if (!(self_send && self_recv)) {
      return Unsupported(
          "a stream-ordered message from this rank to itself needs the send and the receive in one grSendrecv (a "
          "send alone would wait for a receive queued behind it)");
    }
    GR_RETURN_IF_ERROR(OrderAfterPrevious(stream));
    GR_RETURN_IF_ERROR(RunSelf(*send, *recv, stream));
    return MarkLast(stream);
  }
  GR_RETURN_IF_ERROR(OrderAfterPrevious(stream));
  DevP2pLaunch l{};
  GR_RETURN_IF_ERROR(Launch(std::span<const StreamSend>(send, send != nullptr ? 1 : 0),
                            std::span<const StreamRecv>(recv, recv != nullptr ? 1 : 0), false, stream, &l));
  return MarkLast(stream);
}

Status StreamP2p::RunGroup(std::span<const StreamSend> sends, std::span<const StreamRecv> recvs, void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  GR_RETURN_IF_ERROR(CheckErrors());
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  // Messages to this rank itself pair up in order (the i-th send is the
  // i-th receive's): copies, before the kernel.
  const int me = link_.rank();
  std::vector<StreamSend> to_peers, to_self;
  std::vector<StreamRecv> from_peers, from_self;
  for (const StreamSend& x : sends) (x.peer == me ? to_self : to_peers).push_back(x);
  for (const StreamRecv& x : recvs) (x.peer == me ? from_self : from_peers).push_back(x);
  if (to_self.size() != from_self.size()) {
    return InvalidUsage("a group has " + std::to_string(to_self.size()) +
                        " stream-ordered send(s) from this rank to itself but " + std::to_string(from_self.size()) +
                        " receive(s): each needs its partner in the group");
  }
  if (to_peers.size() + from_peers.size() > static_cast<size_t>(kMaxP2pGroupOps)) {
    return InvalidUsage("a group holds " + std::to_string(to_peers.size() + from_peers.size()) +
                        " stream-ordered sends and receives with other ranks on one communicator and stream; at most " +
                        std::to_string(kMaxP2pGroupOps) + " run together");
  }
  // Every self pair is checked before anything is enqueued.
  for (size_t i = 0; i < to_self.size(); ++i) GR_RETURN_IF_ERROR(CheckSelf(to_self[i], from_self[i]));
  GR_RETURN_IF_ERROR(OrderAfterPrevious(stream));
  for (size_t i = 0; i < to_self.size(); ++i) GR_RETURN_IF_ERROR(RunSelf(to_self[i], from_self[i], stream));
  if (!to_peers.empty() || !from_peers.empty()) {
    auto l = std::make_unique<DevP2pGroupLaunch>();
    GR_RETURN_IF_ERROR(Launch(to_peers, from_peers, true, stream, l.get()));
  }
  return MarkLast(stream);
}

// Connections to every peer (set up in ascending peer order, so no cycle of
// ranks waits on each other's set-up), the operations, and one launch (the
// caller ordered `stream` after the previous call). A call's send and
// receive take a block per channel; a group's operations share
// kP2pGroupBlocks (p2p_launch.h).
template <typename L>
Status StreamP2p::Launch(std::span<const StreamSend> sends, std::span<const StreamRecv> recvs, bool group, void* stream,
                         L* l) {
  std::vector<int> peers;
  for (const StreamSend& x : sends) peers.push_back(x.peer);
  for (const StreamRecv& x : recvs) peers.push_back(x.peer);
  std::sort(peers.begin(), peers.end());
  for (int peer : peers) GR_RETURN_IF_ERROR(ConnectionTo(peer).status());
  l->error = error_;
  l->message_error = message_error_;
  l->abort = abort_;
  l->timeout_ns = static_cast<uint64_t>(opt_.timeout_s * 1e9);
  l->buffer_bytes = opt_.buffer_bytes;
  const auto nops = static_cast<int>(sends.size() + recvs.size());
  const int share = std::max(1, kP2pGroupBlocks / std::max(nops, 1));
  std::vector<ResultSlot*> taken;
  auto add = [&](DevP2pOp op) {
    op.blocks = group ? std::min(op.channels, share) : op.channels;
    op.first_block = l->nblocks;
    l->nblocks += op.blocks;
    l->ops[l->nops++] = op;
  };
  for (const StreamSend& x : sends) {
    P2pConnection* c = connections_.at(x.peer).get();
    DevP2pOp op{};
    op.buf = const_cast<void*>(x.buf);
    op.bytes = x.bytes;
    op.chans = c->send_chans();
    op.tag = x.tag;
    op.channels = c->nchannels();
    op.peer = x.peer;
    op.sending = 1;
    add(op);
  }
  Status status;
  for (const StreamRecv& x : recvs) {
    P2pConnection* c = connections_.at(x.peer).get();
    DevP2pOp op{};
    op.buf = x.buf;
    op.bytes = x.room;
    op.chans = c->recv_chans();
    op.tag = x.tag < 0 ? kDevAnyTag : x.tag;
    op.channels = c->nchannels();
    op.peer = x.peer;
    op.sending = 0;
    if (x.status != nullptr) {
      StatusOr<ResultSlot*> slot = TakeResultSlot();
      if (!slot.ok()) {
        status = slot.status();
        break;
      }
      (*slot)->status = x.status;
      (*slot)->source = x.peer;
      (*slot)->type_size = x.type_size;
      op.result = (*slot)->result;
      taken.push_back(*slot);
    }
    add(op);
  }
  if (status.ok()) {
    if (net_ != nullptr) net_->Wake();
    status = cuda::FromCuda(static_cast<cudaError_t>(dev::LaunchP2pKernel(*l, stream)),
                            "launching the stream-ordered point-to-point kernel");
  }
  if (!status.ok()) {
    for (ResultSlot* slot : taken) slot->busy.store(false, std::memory_order_release);
    return status;
  }
  for (ResultSlot* slot : taken) GR_RETURN_IF_ERROR(EnqueueStatus(slot, stream));
  return OkStatus();
}

Status StreamP2p::CheckSelf(const StreamSend& send, const StreamRecv& recv) {
  if (recv.tag >= 0 && recv.tag != send.tag) {
    return InvalidUsage("a stream-ordered message to this rank itself is sent with tag " + std::to_string(send.tag) +
                        " but received with tag " + std::to_string(recv.tag));
  }
  if (send.bytes > recv.room) {
    return Status(grTruncated, "a stream-ordered message to this rank itself sends " + std::to_string(send.bytes) +
                                   " bytes into room for " + std::to_string(recv.room) + " (nothing was moved)");
  }
  return OkStatus();
}

// A message to this rank itself (checked by CheckSelf), on `stream`.
Status StreamP2p::RunSelf(const StreamSend& send, const StreamRecv& recv, void* stream) {
  GR_RETURN_IF_ERROR(CheckSelf(send, recv));
  if (send.bytes > 0 && send.buf != recv.buf) {
    GR_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(recv.buf, send.buf, send.bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
  }
  if (recv.status != nullptr) {
    *recv.status = grStatus_t{};
    recv.status->source = recv.peer;
    recv.status->tag = send.tag;
    recv.status->error = grSuccess;
    recv.status->bytes = send.bytes;
    recv.status->count = send.bytes / recv.type_size;
  }
  return OkStatus();
}

Status StreamP2p::CopyBeside(void* dst, const void* src, uint64_t bytes, void* stream) {
  if (bytes == 0 || dst == src) return OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  if (side_stream_ == nullptr) {
    cudaStream_t s = nullptr;
    GR_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    side_stream_ = s;
    cudaEvent_t fork = nullptr, join = nullptr;
    GR_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    fork_event_ = fork;
    GR_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    join_event_ = join;
  }
  auto side = static_cast<cudaStream_t>(side_stream_);
  GR_CUDA_RETURN_IF_ERROR(cudaEventRecord(static_cast<cudaEvent_t>(fork_event_), static_cast<cudaStream_t>(stream)));
  GR_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(side, static_cast<cudaEvent_t>(fork_event_), 0));
  const bool aligned = (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src)) % 16 == 0;
  if (opt_.self_copy_blocks > 0 && aligned) {
    GR_CUDA_RETURN_IF_ERROR(cuda::LaunchCopy(dst, src, bytes, opt_.self_copy_blocks, side));
  } else {
    GR_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, side));
  }
  GR_CUDA_RETURN_IF_ERROR(cudaEventRecord(static_cast<cudaEvent_t>(join_event_), side));
  copies_pending_ = true;
  return OkStatus();
}

Status StreamP2p::JoinCopies(void* stream) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!copies_pending_) return OkStatus();
  copies_pending_ = false;
  GR_CUDA_RETURN_IF_ERROR(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(join_event_), 0));
  // The next call's order follows `stream` now.
  return MarkLast(stream);
}

StatusOr<StreamP2p::ResultSlot*> StreamP2p::TakeResultSlot() {
  for (size_t n = 0; n < kResultSlots; ++n) {
    ResultSlot& s = slots_[(next_slot_ + n) % kResultSlots];
    bool expected = false;
    if (s.busy.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      next_slot_ = (next_slot_ + n + 1) % kResultSlots;
      s.result->error = kDevResultUnfilled;
      return &s;
    }
  }
  return Unsupported("more than " + std::to_string(kResultSlots) +
                     " stream-ordered receives with a status are pending on streams; synchronize a stream or pass "
                     "GR_STATUS_IGNORE");
}

Status StreamP2p::EnqueueStatus(ResultSlot* slot, void* stream) {
  const cudaError_t err = cudaLaunchHostFunc(static_cast<cudaStream_t>(stream), FillStatus, slot);
  if (err != cudaSuccess) {
    slot->busy.store(false, std::memory_order_release);
    return cuda::FromCuda(err, "cudaLaunchHostFunc (a stream-ordered receive's status)");
  }
  return OkStatus();
}

// A CUDA host function (it may not call CUDA): the receive's kernel has
// ended, its result slot says what it found.
void StreamP2p::FillStatus(void* arg) {
  auto* slot = static_cast<ResultSlot*>(arg);
  std::atomic_thread_fence(std::memory_order_acquire);
  DevP2pResult r;
  std::memcpy(&r, slot->result, sizeof(r));
  grStatus_t st{};
  st.source = slot->source;
  st.tag = r.tag;
  st.bytes = r.error == kDevResultUnfilled ? 0 : r.bytes;
  st.count = st.bytes / slot->type_size;
  switch (r.error) {
    case 0: st.error = grSuccess; break;
    case kDevErrorTruncated: st.error = grTruncated; break;
    case kDevErrorTagMismatch: st.error = grInvalidUsage; break;
    default:
      st.error = LoadVolatile(&slot->owner->error_->code) == static_cast<uint32_t>(DevErrorCode::kTimeout)
                     ? grTimeout
                     : grRemoteError;
      st.tag = -1;
  }
  *slot->status = st;
  slot->busy.store(false, std::memory_order_release);
}

}  // namespace gpurun::coll
