// The GPU tree's connections (tree_connectors.h).
#include "coll/gpu/tree_connectors.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "coll/gpu/first_step.h"
#include "coll/gpu/tree_layout.h"
#include "coll/host/conn_group.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"
#include "topo/ring_hints.h"
#include "topo/ring_links.h"

namespace gpurun::coll {
namespace {

uint8_t* At(void* base, uint64_t offset) { return static_cast<uint8_t*>(base) + offset; }

}  // namespace

StatusOr<std::unique_ptr<TreeConnectors>> TreeConnectors::Create(CommLink& link, int device, const RingConnectors& ring,
                                                                 uint64_t first_step) {
  if (link.size() < 2) return InternalError("GPU tree connectors need at least two ranks");
  std::unique_ptr<TreeConnectors> t(new TreeConnectors());
  t->device_ = device;
  t->nranks_ = link.size();
  t->position_ = ring.position();
  t->nchannels_ = GpuTreeChannels(ring.nchannels());
  t->buffer_bytes_ = std::min(ring.buffer_bytes(), kMaxSimpleBytes);
  t->ll_buffer_bytes_ = ring.ll_buffer_bytes();
  t->ll128_buffer_bytes_ = ring.ll128_buffer_bytes();
  t->rank_at_.assign(static_cast<size_t>(t->nranks_), 0);
  for (int r = 0; r < t->nranks_; ++r) t->rank_at_[static_cast<size_t>(ring.position_of(r))] = r;
  for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
    const TreeLinks links = DoubleTreeLinks(t->nranks_, t->position_, tree);
    for (int role = 0; role < kTreeRoles; ++role) {
      const int pos = TreePeerAt(links, role);
      if (pos < 0) continue;
      const int rank = t->rank_at_[static_cast<size_t>(pos)];
      if (std::find(t->neighbours_.begin(), t->neighbours_.end(), rank) == t->neighbours_.end()) {
        t->neighbours_.push_back(rank);
      }
    }
  }
  std::vector<std::string> bus_ids;
  const StatusOr<PeerPath> path = t->ChoosePath(link, ring, &bus_ids);
  GR_RETURN_IF_ERROR(t->AgreeLL128(link, ring, bus_ids, path));
  GR_RETURN_IF_ERROR(t->Share(link, path));
  GR_RETURN_IF_ERROR(t->StartAt(link, first_step));
  GR_RETURN_IF_ERROR(t->WriteLinks(first_step));
  GR_LOG(Info, Coll) << "GPU tree connectors ready: GPU " << device << ", tree position " << t->position_ << ", "
                     << t->neighbours_.size() << " neighbour(s), " << t->nchannels_ << " channels of "
                     << t->buffer_bytes_ << " B Simple, " << t->ll_buffer_bytes_ << " B LL and "
                     << t->ll128_buffer_bytes_ << " B LL128 FIFOs per link in " << PeerPathName(t->mine_->path())
                     << (first_step != 0 ? ", steps from " + std::to_string(first_step) + " (GPURUN_FIRST_STEP)" : "");
  return t;
}

// Every rank's GPU (collective), then the path of this rank's buffer: the
// ring's when that is host memory, else host memory when a tree neighbour's
// GPU has no peer access to this one's (or as GPURUN_GPU_PATH forces).
StatusOr<PeerPath> TreeConnectors::ChoosePath(CommLink& link, const RingConnectors& ring,
                                              std::vector<std::string>* bus_ids) {
  GpuIdentity me{};
  const StatusOr<GpuIdentity> identity = IdentityOf(device_);
  if (identity.ok()) me = *identity;
  std::vector<GpuIdentity> all(static_cast<size_t>(nranks_));
  GR_RETURN_IF_ERROR(link.AllGather(&me, sizeof(me), all.data()));
  for (const GpuIdentity& g : all) bus_ids->emplace_back(g.bus_id, strnlen(g.bus_id, sizeof(g.bus_id)));
  if (!identity.ok()) return identity.status();
  GR_ASSIGN_OR_RETURN(const PathChoice choice, LoadPathChoice());
  PeerPath path = ring.path();
  for (int peer : neighbours_) {
    GR_ASSIGN_OR_RETURN(const PeerPath p,
                        PathTo(link, peer, device_, all[static_cast<size_t>(peer)], choice, "GPU collectives"));
    if (p == PeerPath::kHost) path = PeerPath::kHost;
  }
  return path;
}

// Collective, reached also when this rank's path failed (Share then fails
// every rank, naming it).
Status TreeConnectors::AgreeLL128(CommLink& link, const RingConnectors& ring, const std::vector<std::string>& bus_ids,
                                  const StatusOr<PeerPath>& path) {
  struct Proposal {
    int32_t narrowest_nvlinks = topo::kUnknown;
    int32_t host_path = 0;
  } proposal;
  if (path.ok()) {
    proposal.host_path = *path == PeerPath::kHost ? 1 : 0;
    proposal.narrowest_nvlinks = topo::kNoGpuHop;
    const int me = rank_at_[static_cast<size_t>(position_)];
    // kUnknown (-1) is below every count and kNoGpuHop above: the smallest wins.
    for (int peer : neighbours_) {
      proposal.narrowest_nvlinks =
          std::min(proposal.narrowest_nvlinks, topo::NarrowestRingHopFromNvml(bus_ids, {me, peer}));
    }
  }
  std::vector<Proposal> proposals(static_cast<size_t>(nranks_));
  GR_RETURN_IF_ERROR(link.AllGather(&proposal, sizeof(proposal), proposals.data()));
  if (ll128_buffer_bytes_ == 0) {
    ll128_limit_ = ring.ll128_limit();
    return OkStatus();
  }
  for (size_t r = 0; r < proposals.size() && ll128_limit_.empty(); ++r) {
    const Proposal& p = proposals[r];
    const std::string who = "rank " + std::to_string(r);
    if (p.host_path != 0) {
      ll128_limit_ = who + "'s tree FIFOs are in host memory";
    } else if (p.narrowest_nvlinks == topo::kUnknown) {
      ll128_limit_ = who + " cannot tell whether its tree hops are NVLink (no NVML answer)";
    } else if (p.narrowest_nvlinks == 0) {
      ll128_limit_ = who + " sees a tree hop between two GPUs over PCIe";
    }
  }
  if (!ll128_limit_.empty()) {
    ll128_limit_ = "LL128 needs every tree hop between two GPUs over NVLink through CUDA IPC, and " + ll128_limit_;
    ll128_buffer_bytes_ = 0;
  }
  return OkStatus();
}

Status TreeConnectors::Share(CommLink& link, const StatusOr<PeerPath>& path) {
  const uint64_t bytes = TreeControlBytes(nchannels_) + LinkBytes() *
                                                            static_cast<uint64_t>(TreeSlotCount(nranks_, position_)) *
                                                            static_cast<uint64_t>(nchannels_);
  GR_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<PeerMapping>> mapped,
                      ShareOwnMemory(link, path, device_, bytes,
                                     ConnGroup::SegmentName(link.UniqueName(), kGpuTreeSegmentGroup, link.rank()),
                                     neighbours_, "GPU tree", &mine_));
  for (size_t k = 0; k < neighbours_.size(); ++k) mapped_[neighbours_[k]] = std::move(mapped[k]);
  return OkStatus();
}

Status TreeConnectors::StartAt(CommLink& link, uint64_t first_step) {
  std::vector<OwnConnection> connections;
  for (int ch = 0; ch < nchannels_; ++ch) {
    for (int slot = 0; slot < TreeSlotCount(nranks_, position_); ++slot) {
      connections.push_back({CounterOffset(ch, slot), FifoOffset(nchannels_, LinkBytes(), ch, slot) + buffer_bytes_});
    }
  }
  return StartOwnConnections(link, device_, mine_->device_ptr(), connections, ll_buffer_bytes_, first_step, "GPU tree");
}

Status TreeConnectors::WriteLinks(uint64_t first_step) {
  void* mine = mine_->device_ptr();
  const uint64_t link_bytes = LinkBytes();
  const uint64_t ll_at = buffer_bytes_;
  const uint64_t ll128_at = buffer_bytes_ + ll_buffer_bytes_;
  const bool ll128 = ll128_buffer_bytes_ > 0;
  std::vector<DevTreeLinks> table(static_cast<size_t>(2 * nchannels_));
  for (int ch = 0; ch < nchannels_; ++ch) {
    for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
      const TreeLinks links = DoubleTreeLinks(nranks_, position_, tree);
      DevTreeLinks& d = table[static_cast<size_t>(ch * 2 + tree)];
      std::memset(&d, 0, sizeof(d));
      d.nchildren = links.NumChildren();
      d.up_recv_step = d.up_send_step = d.down_recv_step = d.down_send_step = first_step;
      for (int role = 0; role < kTreeRoles; ++role) {
        d.peer[role] = -1;
        const int pos = TreePeerAt(links, role);
        if (pos < 0) continue;
        const int rank = rank_at_[static_cast<size_t>(pos)];
        void* theirs = mapped_.at(rank)->device_ptr();
        const int my_slot = TreeSlot(nranks_, position_, tree, role);
        const int their_slot = TreeSlot(nranks_, pos, tree, PeerRole(nranks_, position_, tree, role));
        if (my_slot < 0 || their_slot < 0) return InternalError("GPU tree layout has no slot for a link");
        const uint64_t my_fifo = FifoOffset(nchannels_, link_bytes, ch, my_slot);
        const uint64_t their_fifo = FifoOffset(nchannels_, link_bytes, ch, their_slot);
        const uint64_t my_counters = CounterOffset(ch, my_slot);
        const uint64_t their_counters = CounterOffset(ch, their_slot);
        d.peer[role] = rank;
        d.recv[role].fifo = At(mine, my_fifo);
        d.recv[role].ll_fifo = At(mine, my_fifo + ll_at);
        d.recv[role].ll128_fifo = ll128 ? At(mine, my_fifo + ll128_at) : nullptr;
        d.recv[role].tail = reinterpret_cast<const uint64_t*>(At(mine, my_counters));
        d.recv[role].head = reinterpret_cast<uint64_t*>(At(theirs, their_counters + 128));
        d.send[role].fifo = At(theirs, their_fifo);
        d.send[role].ll_fifo = At(theirs, their_fifo + ll_at);
        d.send[role].ll128_fifo = ll128 ? At(theirs, their_fifo + ll128_at) : nullptr;
        d.send[role].tail = reinterpret_cast<uint64_t*>(At(theirs, their_counters));
        d.send[role].head = reinterpret_cast<const uint64_t*>(At(mine, my_counters + 128));
      }
    }
  }
  GR_ASSIGN_OR_RETURN(void* dev, cuda::UploadToDevice(device_, table.data(), sizeof(DevTreeLinks) * table.size()));
  links_ = static_cast<DevTreeLinks*>(dev);
  return OkStatus();
}

TreeConnectors::~TreeConnectors() {
  cudaSetDevice(device_);
  if (links_ != nullptr) cudaFree(links_);
}

}  // namespace gpurun::coll
