// The GPU ring's connections (ring_connectors.h).
#include "coll/gpu/ring_connectors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "coll/host/conn_group.h"
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
                                                                 uint64_t buffer_bytes, uint64_t ll_buffer_bytes) {
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
  GR_RETURN_IF_ERROR(c->Exchange(link));
  GR_RETURN_IF_ERROR(c->WriteChannels());
  GR_LOG(Info, Coll) << "GPU ring connectors ready: GPU " << device << ", ring position " << c->position_
                     << " (after rank " << c->prev_rank_ << ", before rank " << c->next_rank_ << "), " << c->nchannels_
                     << " channels of " << buffer_bytes << " B Simple and " << ll_buffer_bytes << " B LL FIFOs in "
                     << PeerPathName(c->mine_->path());
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
  GR_ASSIGN_OR_RETURN(*order, topo::RingOrderFor(params::kGpuRing.Get(), bus_ids));
  GR_RETURN_IF_ERROR(SetOrder(*order, link.rank()));
  GR_ASSIGN_OR_RETURN(const PathChoice choice, LoadPathChoice());
  PeerPath path = PeerPath::kCudaIpc;
  for (int peer : {prev_rank_, next_rank_}) {
    const ConnectionShape& r = all[static_cast<size_t>(peer)];
    GR_RETURN_IF_ERROR(CheckSameShape(link, peer, me, r, "GPU ring", "GPURUN_GPU_NCHANNELS / GPURUN_GPU_BUFFSIZE"));
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
  int32_t proposal = 0;
  if (path.ok() && requested_channels_ > 0) {
    proposal = requested_channels_;
  } else if (path.ok()) {
    shape.narrowest_nvlinks = topo::NarrowestRingHopFromNvml(bus_ids, order);
    shape.ranks_per_gpu = topo::MostRanksPerGpu(bus_ids);
    shape.host_path = *path == PeerPath::kHost;
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_) == cudaSuccess) shape.sm_count = sms;
    proposal = topo::GpuRingChannels(shape);
  }
  std::vector<int32_t> proposals(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&proposal, sizeof(proposal), proposals.data()));
  nchannels_ = kMaxDeviceChannels;
  for (int32_t p : proposals) {
    if (p > 0) nchannels_ = std::min<int>(nchannels_, p);
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
                         << (shape.host_path ? "host memory" : "CUDA IPC") << ", " << shape.sm_count
                         << " SMs; the smallest proposal of the ring's ranks)";
  }
  return OkStatus();
}

Status RingConnectors::Exchange(CommLink& link) {
  // ChoosePath sets nchannels_, which the size below needs: two statements.
  const StatusOr<PeerPath> path = ChoosePath(link);
  std::vector<int> peers = {prev_rank_};
  if (next_rank_ != prev_rank_) peers.push_back(next_rank_);
  GR_ASSIGN_OR_RETURN(
      std::vector<std::unique_ptr<PeerMapping>> mapped,
      ShareOwnMemory(
          link, path, device_, kControlBytes + (buffer_bytes_ + ll_buffer_bytes_) * static_cast<uint64_t>(nchannels_),
          ConnGroup::SegmentName(link.UniqueName(), kGpuRingSegmentGroup, link.rank()), peers, "GPU ring", &mine_));
  prev_ = std::move(mapped[0]);
  if (mapped.size() > 1) next_ = std::move(mapped[1]);
  return OkStatus();
}

Status RingConnectors::WriteChannels() {
  void* mine = mine_->device_ptr();
  void* prev = prev_->device_ptr();
  void* next = next_ != nullptr ? next_->device_ptr() : prev;
  std::vector<DevChannel> table(kMaxDeviceChannels);
  for (int ch = 0; ch < nchannels_; ++ch) {
    const uint64_t counters = kCounterStride * static_cast<uint64_t>(ch);
    const uint64_t fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(ch);
    const uint64_t ll_fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(nchannels_) +
                             ll_buffer_bytes_ * static_cast<uint64_t>(ch);
    DevChannel& d = table[static_cast<size_t>(ch)];
    d.recv.fifo = At(mine, fifo);
    d.recv.ll_fifo = At(mine, ll_fifo);
    d.recv.tail = reinterpret_cast<const uint64_t*>(At(mine, counters));
    d.recv.head = reinterpret_cast<uint64_t*>(At(prev, counters + 128));
    d.send.fifo = At(next, fifo);
    d.send.ll_fifo = At(next, ll_fifo);
    d.send.tail = reinterpret_cast<uint64_t*>(At(next, counters));
    d.send.head = reinterpret_cast<const uint64_t*>(At(mine, counters + 128));
    d.recv_step = 0;
    d.send_step = 0;
  }
  GR_ASSIGN_OR_RETURN(void* dev, cuda::UploadToDevice(device_, table.data(), sizeof(DevChannel) * table.size()));
  channels_ = static_cast<DevChannel*>(dev);
  return OkStatus();
}

RingConnectors::~RingConnectors() {
  cudaSetDevice(device_);
  if (channels_ != nullptr) cudaFree(channels_);
  if (ring_ranks_ != nullptr) cudaFree(ring_ranks_);
}

}  // namespace gpurun::coll
