// The GPU ring's connections (ring_connectors.h).
#include "coll/gpu/ring_connectors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "coll/gpu/first_step.h"
#include "coll/host/agree.h"
#include "coll/host/conn_group.h"
#include "coll/int_math.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"
#include "topo/ring_hints.h"
#include "topo/ring_links.h"

namespace gpurun::coll {
namespace {

uint8_t* At(void* base, uint64_t offset) { return static_cast<uint8_t*>(base) + offset; }

}  // namespace

StatusOr<std::unique_ptr<RingConnectors>> RingConnectors::Create(CommLink& link, int device, int nchannels,
                                                                 uint64_t buffer_bytes, uint64_t ll_buffer_bytes,
                                                                 uint64_t ll128_buffer_bytes, uint64_t first_step,
                                                                 GpuNetProxy* net) {
  if (link.size() < 2) return InternalError("GPU ring connectors need at least two ranks");
  if (nchannels < 0 || nchannels > kMaxDeviceChannels) {
    return InvalidArgument("GPU channel count " + std::to_string(nchannels) + " is outside 0.." +
                           std::to_string(kMaxDeviceChannels));
  }
  std::unique_ptr<RingConnectors> c(new RingConnectors());
  c->device_ = device;
  c->requested_channels_ = nchannels;
  c->nchannels_ = nchannels;
  c->buffer_bytes_ = buffer_bytes;
  c->ll_buffer_bytes_ = ll_buffer_bytes;
  c->ll128_buffer_bytes_ = ll128_buffer_bytes;
  c->net_ = net;
  GR_RETURN_IF_ERROR(c->Exchange(link));
  // Every rank of a communicator across hosts has a proxy, so all agree.
  if (net != nullptr) {
    GR_RETURN_IF_ERROR(AgreeOnSuccess(link, c->MakeNetSides(first_step), "GPU ring: NET connections"));
  }
  GR_RETURN_IF_ERROR(c->StartAt(link, first_step));
  GR_RETURN_IF_ERROR(c->WriteChannels(first_step));
  GR_LOG(Info, Coll) << "GPU ring connectors ready: GPU " << device << ", ring position " << c->position_
                     << " (after rank " << c->prev_rank_ << ", before rank " << c->next_rank_ << "), " << c->nchannels_
                     << " channels of " << buffer_bytes << " B Simple, " << ll_buffer_bytes << " B LL and "
                     << c->ll128_buffer_bytes_ << " B LL128 FIFOs in " << PeerPathName(c->mine_->path())
                     << (c->net_prev_ || c->net_next_
                             ? std::string(", NET ") + (c->net_prev_ ? "from the previous rank" : "") +
                                   (c->net_prev_ && c->net_next_ ? " and " : "") + (c->net_next_ ? "to the next" : "")
                             : std::string())
                     << (first_step != 0 ? ", steps from " + std::to_string(first_step) + " (GPURUN_FIRST_STEP)" : "");
  return c;
}

Status RingConnectors::SetOrder(const std::vector<int>& order, int rank) {
  const size_t n = order.size();
  positions_.assign(n, 0);
  for (size_t k = 0; k < n; ++k) positions_[static_cast<size_t>(order[k])] = static_cast<int>(k);
  position_ = positions_[static_cast<size_t>(rank)];
  prev_rank_ = order[(static_cast<size_t>(position_) + n - 1) % n];
  next_rank_ = order[(static_cast<size_t>(position_) + 1) % n];
  std::vector<int32_t> table(order.begin(), order.end());
  GR_ASSIGN_OR_RETURN(void* dev, cuda::UploadToDevice(device_, table.data(), sizeof(int32_t) * n));
  ring_ranks_ = static_cast<int32_t*>(dev);
  return OkStatus();
}

// The ring order from every rank's GPU, then the path of this rank's
// buffer: host memory when either neighbour (both map it) cannot use CUDA
// IPC with this GPU; then the channel count all ranks agree on.
StatusOr<PeerPath> RingConnectors::ChoosePath(CommLink& link) {
  ConnectionShape me{};
  const StatusOr<GpuIdentity> identity = IdentityOf(device_);
  if (identity.ok()) me.gpu = *identity;
  me.nchannels = nchannels_;
  me.buffer_bytes = buffer_bytes_;
  std::vector<ConnectionShape> all(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&me, sizeof(me), all.data()));
  std::vector<std::string> bus_ids;
  for (const ConnectionShape& r : all) bus_ids.emplace_back(r.gpu.bus_id, strnlen(r.gpu.bus_id, sizeof(r.gpu.bus_id)));
  std::vector<int> order;
  const StatusOr<PeerPath> path = identity.ok() ? OrderAndPath(link, me, all, bus_ids, &order) : identity.status();
  GR_RETURN_IF_ERROR(AgreeChannels(link, bus_ids, order, path));
  return path;
}

StatusOr<PeerPath> RingConnectors::OrderAndPath(CommLink& link, const ConnectionShape& me,
                                                const std::vector<ConnectionShape>& all,
                                                const std::vector<std::string>& bus_ids, std::vector<int>* order) {
  std::vector<int> hosts;
  for (int r = 0; r < link.size(); ++r) hosts.push_back(link.HostOf(r));
  GR_ASSIGN_OR_RETURN(*order, topo::RingOrderFor(params::kGpuRing.Get(), hosts, bus_ids));
  GR_RETURN_IF_ERROR(SetOrder(*order, link.rank()));
  GR_ASSIGN_OR_RETURN(const PathChoice choice, LoadPathChoice());
  PeerPath path = PeerPath::kCudaIpc;
  for (int peer : {prev_rank_, next_rank_}) {
    const ConnectionShape& r = all[static_cast<size_t>(peer)];
    GR_RETURN_IF_ERROR(CheckSameShape(link, peer, me, r, "GPU ring", "GPURUN_GPU_NCHANNELS / GPURUN_GPU_BUFFSIZE"));
    if (IsNetPeer(link, peer)) {
      if (net_ == nullptr) return InternalError("a GPU ring with NET hops but no NET proxy");
      // With two ranks the one peer is both neighbours.
      net_prev_ = net_prev_ || peer == prev_rank_;
      net_next_ = net_next_ || peer == next_rank_;
      continue;
    }
    GR_ASSIGN_OR_RETURN(const PeerPath p, PathTo(link, peer, device_, r.gpu, choice, "GPU collectives"));
    if (p == PeerPath::kHost) path = PeerPath::kHost;
  }
  return path;
}

// Collective, and reached by every rank also when its path failed (it then
// proposes 0, and the set-up fails at the next exchange, naming it): each
// rank proposes GPURUN_GPU_NCHANNELS or, when that is 0, what the topology
// suggests from its view (topo::GpuRingChannels), and the ring takes the
// smallest proposal.
Status RingConnectors::AgreeChannels(CommLink& link, const std::vector<std::string>& bus_ids,
                                     const std::vector<int>& order, const StatusOr<PeerPath>& path) {
  topo::GpuRingShape shape;
  struct Proposal {
    int32_t channels = 0;
    int32_t narrowest_nvlinks = topo::kUnknown;  // this rank's view, for LL128
    int32_t host_path = 0;
    int32_t net = 0;  // a hop of this rank's is NET
  } proposal;
  const bool net = net_prev_ || net_next_;
  if (path.ok()) {
    shape.narrowest_nvlinks = topo::NarrowestRingHopFromNvml(bus_ids, order);
    proposal.narrowest_nvlinks = shape.narrowest_nvlinks;
    proposal.host_path = *path == PeerPath::kHost ? 1 : 0;
    proposal.net = net ? 1 : 0;
  }
  if (path.ok() && requested_channels_ > 0) {
    proposal.channels = requested_channels_;
  } else if (path.ok()) {
    shape.ranks_per_gpu = topo::MostRanksPerGpu(bus_ids);
    shape.host_path = *path == PeerPath::kHost;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_) == cudaSuccess) shape.sm_count = sms;
    proposal.channels = topo::GpuRingChannels(shape);
    if (net) proposal.channels = std::min(proposal.channels, kNetRingChannels);
  }
  std::vector<Proposal> proposals(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&proposal, sizeof(proposal), proposals.data()));
  nchannels_ = kMaxDeviceChannels;
  for (const Proposal& p : proposals) {
    if (p.channels > 0) nchannels_ = std::min<int>(nchannels_, p.channels);
  }
  // LL128 only where a warp's 128-byte store arrives whole (wire_format.h).
  for (size_t r = 0; r < proposals.size() && ll128_limit_.empty(); ++r) {
    const Proposal& p = proposals[r];
    const std::string who = "rank " + std::to_string(r);
    if (p.net != 0) {
      ll128_limit_ = who + "'s ring crosses hosts (NET)";
    } else if (p.host_path != 0) {
      ll128_limit_ = who + "'s ring FIFOs are in host memory";
    } else if (p.narrowest_nvlinks == topo::kUnknown) {
      ll128_limit_ = who + " cannot tell whether its ring hops are NVLink (no NVML answer)";
    } else if (p.narrowest_nvlinks == 0) {
      ll128_limit_ = who + " sees a ring hop between two GPUs over PCIe";
    }
  }
  if (ll128_buffer_bytes_ == 0 && ll128_limit_.empty()) ll128_limit_ = "this ring has no LL128 FIFOs";
  if (!ll128_limit_.empty()) {
    ll128_limit_ = "LL128 needs every ring hop between two GPUs over NVLink through CUDA IPC, and " + ll128_limit_;
    ll128_buffer_bytes_ = 0;
  }
  if (requested_channels_ > 0) {
    GR_LOG(Info, Tuning) << "GPU ring: " << nchannels_ << " channels (GPURUN_GPU_NCHANNELS)";
  } else {
    GR_LOG(Info, Tuning) << "GPU ring: " << nchannels_ << " channels from the topology (this rank: narrowest hop "
                         << (shape.narrowest_nvlinks == topo::kNoGpuHop ? std::string("none, one GPU")
                             : shape.narrowest_nvlinks == topo::kUnknown
                                 ? std::string("unknown")
                                 : std::to_string(shape.narrowest_nvlinks) + " NVLinks")
                         << ", " << shape.ranks_per_gpu << " ranks per GPU, "
                         << (shape.host_path ? "host memory" : "CUDA IPC") << ", " << shape.sm_count << " SMs"
                         << (net ? ", NET hops: at most " + std::to_string(kNetRingChannels) : std::string())
                         << "; the smallest proposal of the ring's ranks)";
  }
  return OkStatus();
}

Status RingConnectors::Exchange(CommLink& link) {
  // ChoosePath sets nchannels_, which the size below needs: two statements.
  const StatusOr<PeerPath> path = ChoosePath(link);
  // The neighbours on this host map this rank's buffer; NET ones do not.
  std::vector<int> peers;
  if (!net_prev_) peers.push_back(prev_rank_);
  if (!net_next_ && next_rank_ != prev_rank_) peers.push_back(next_rank_);
  GR_ASSIGN_OR_RETURN(
      std::vector<std::unique_ptr<PeerMapping>> mapped,
      ShareOwnMemory(
          link, path, device_,
          kControlBytes + (buffer_bytes_ + ll_buffer_bytes_ + ll128_buffer_bytes_) * static_cast<uint64_t>(nchannels_),
          ConnGroup::SegmentName(link.UniqueName(), kGpuRingSegmentGroup, link.rank()), peers, "GPU ring", &mine_));
  size_t at = 0;
  if (!net_prev_) prev_ = std::move(mapped[at++]);
  if (!net_next_ && next_rank_ != prev_rank_) next_ = std::move(mapped[at++]);
  return OkStatus();
}

uint64_t RingConnectors::NetSideOffset(bool send, int ch) const {
  const uint64_t sides = (net_prev_ ? 1 : 0) + (net_next_ ? 1 : 0);
  return (static_cast<uint64_t>(ch) * sides + (send && net_prev_ ? 1 : 0)) * net_side_bytes_;
}

Status RingConnectors::MakeNetSides(uint64_t first_step) {
  if (!net_prev_ && !net_next_) return OkStatus();
  net_layout_ = GpuNetLayout{buffer_bytes_, ll_buffer_bytes_};
  net_side_bytes_ = AlignUp(net_layout_.Bytes(), uint64_t{4096});
  GR_ASSIGN_OR_RETURN(net_memory_, MappedHostMemory::Create(NetSideOffset(false, nchannels_)));
  for (int ch = 0; ch < nchannels_; ++ch) {
    for (bool send : {false, true}) {
      if (!(send ? net_next_ : net_prev_)) continue;
      uint8_t* side = net_memory_->host() + NetSideOffset(send, ch);
      if (first_step != 0) StartNetSide(side, net_layout_, first_step, !send);
      GpuNetEdge edge;
      edge.peer = send ? next_rank_ : prev_rank_;
      edge.send = send;
      edge.edge = static_cast<uint32_t>(ch);
      edge.base = side;
      edge.layout = net_layout_;
      edge.first_step = first_step;
      edge.owner = this;
      GR_RETURN_IF_ERROR(net_->AddEdge(edge));
      net_edges_ = true;
    }
  }
  return OkStatus();
}

Status RingConnectors::StartAt(CommLink& link, uint64_t first_step) {
  std::vector<OwnConnection> connections;
  for (int ch = 0; ch < nchannels_; ++ch) {
    connections.push_back({kCounterStride * static_cast<uint64_t>(ch), LLFifoOffset(ch)});
  }
  return StartOwnConnections(link, device_, mine_->device_ptr(), connections, ll_buffer_bytes_, first_step, "GPU ring");
}

Status RingConnectors::WriteChannels(uint64_t first_step) {
  void* mine = mine_->device_ptr();
  void* prev = prev_ != nullptr ? prev_->device_ptr() : nullptr;
  void* next = next_ != nullptr ? next_->device_ptr() : prev;
  std::vector<DevChannel> table(kMaxDeviceChannels);
  for (int ch = 0; ch < nchannels_; ++ch) {
    const uint64_t counters = kCounterStride * static_cast<uint64_t>(ch);
    const uint64_t fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(ch);
    const uint64_t ll_fifo = LLFifoOffset(ch);
    const uint64_t ll128_fifo = kControlBytes + (buffer_bytes_ + ll_buffer_bytes_) * static_cast<uint64_t>(nchannels_) +
                                ll128_buffer_bytes_ * static_cast<uint64_t>(ch);
    const bool ll128 = ll128_buffer_bytes_ > 0;
    DevChannel& d = table[static_cast<size_t>(ch)];
    if (net_prev_) {
      uint8_t* side = net_memory_->device(NetSideOffset(false, ch));
      d.recv.fifo = side + GpuNetLayout::kFifo;
      d.recv.ll_fifo = side + net_layout_.LLFifo();
      d.recv.tail = reinterpret_cast<const uint64_t*>(side + GpuNetLayout::kTail);
      d.recv.head = reinterpret_cast<uint64_t*>(side + GpuNetLayout::kHead);
    } else {
      d.recv.fifo = At(mine, fifo);
      d.recv.ll_fifo = At(mine, ll_fifo);
      d.recv.ll128_fifo = ll128 ? At(mine, ll128_fifo) : nullptr;
      d.recv.tail = reinterpret_cast<const uint64_t*>(At(mine, counters));
      d.recv.head = reinterpret_cast<uint64_t*>(At(prev, counters + 128));
    }
    if (net_next_) {
      uint8_t* side = net_memory_->device(NetSideOffset(true, ch));
      d.send.fifo = side + GpuNetLayout::kFifo;
      d.send.ll_fifo = side + net_layout_.LLFifo();
      d.send.tail = reinterpret_cast<uint64_t*>(side + GpuNetLayout::kTail);
      d.send.head = reinterpret_cast<const uint64_t*>(side + GpuNetLayout::kHead);
      d.send.net_sizes = reinterpret_cast<uint32_t*>(side + GpuNetLayout::kSizes);
    } else {
      d.send.fifo = At(next, fifo);
      d.send.ll_fifo = At(next, ll_fifo);
      d.send.ll128_fifo = ll128 ? At(next, ll128_fifo) : nullptr;
      d.send.tail = reinterpret_cast<uint64_t*>(At(next, counters));
      d.send.head = reinterpret_cast<const uint64_t*>(At(mine, counters + 128));
    }
    d.recv_step = first_step;
    d.send_step = first_step;
  }
  GR_ASSIGN_OR_RETURN(void* dev, cuda::UploadToDevice(device_, table.data(), sizeof(DevChannel) * table.size()));
  channels_ = static_cast<DevChannel*>(dev);
  return OkStatus();
}

RingConnectors::~RingConnectors() {
  cudaSetDevice(device_);
  // The proxy lets go of the NET sides before their memory goes.
  if (net_edges_) net_->RemoveOwner(this);
  net_memory_.reset();
  if (channels_ != nullptr) cudaFree(channels_);
  if (ring_ranks_ != nullptr) cudaFree(ring_ranks_);
}

}  // namespace gpurun::coll
