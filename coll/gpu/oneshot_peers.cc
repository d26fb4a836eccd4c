// The one-shot and two-shot allreduce's scratch buffers (oneshot_peers.h).
#include "coll/gpu/oneshot_peers.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>

#include "coll/device/twoshot_layout.h"
#include "coll/host/conn_group.h"
#include "coll/int_math.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

struct Counters {
  uint64_t calls;
  uint32_t blocks_done;
  uint32_t pad;
};

int RegionIndex(DirectRegion region) { return region == DirectRegion::kLarge ? 0 : 1; }

}  // namespace

StatusOr<std::unique_ptr<OneShotPeers>> OneShotPeers::Create(CommLink& link, int device, uint64_t max_bytes) {
  if (link.size() < 2 || link.size() > kMaxOneShotRanks) {
    return InternalError("a one-shot allreduce needs 2.." + std::to_string(kMaxOneShotRanks) + " ranks, not " +
                         std::to_string(link.size()));
  }
  std::unique_ptr<OneShotPeers> p(new OneShotPeers());
  p->device_ = device;
  p->rank_ = link.rank();
  p->nranks_ = link.size();
  p->max_bytes_ = max_bytes;
  // A two-shot call's slots also hold its empty parts' tokens.
  const uint64_t lines = DivUp(max_bytes, kOneShotLineData);
  p->slot_bytes_ = Max(OneShotSlotBytes(max_bytes), TwoShotSlotLines(lines, p->nranks_) * sizeof(LLLine));
  p->batch_max_bytes_ = Min(max_bytes, kOneShotBatchMaxBytes);
  p->batch_slot_bytes_ = OneShotSlotBytes(p->batch_max_bytes_);
  GR_RETURN_IF_ERROR(p->Exchange(link));
  const Counters zero[2]{};
  GR_ASSIGN_OR_RETURN(p->counters_, cuda::UploadToDevice(device, zero, sizeof(zero)));
  GR_LOG(Info, Coll) << "GPU one-shot / two-shot allreduce ready: GPU " << device << ", calls up to " << max_bytes
                     << " B (up to " << kOneShotBatchCalls << " a launch up to " << p->batch_max_bytes_
                     << " B), scratch of " << p->LargeRegionBytes() + p->BatchRegionBytes() << " B in "
                     << PeerPathName(p->mine_->path());
  return p;
}

// Host memory when any peer cannot map this GPU's memory (every peer maps
// this rank's buffer).
StatusOr<PeerPath> OneShotPeers::ChoosePath(CommLink& link) {
  GpuIdentity me{};
  const StatusOr<GpuIdentity> identity = IdentityOf(device_);
  if (identity.ok()) me = *identity;
  std::vector<GpuIdentity> all(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&me, sizeof(me), all.data()));
  GR_RETURN_IF_ERROR(identity.status());
  GR_ASSIGN_OR_RETURN(const PathChoice choice, LoadPathChoice());
  PeerPath path = PeerPath::kCudaIpc;
  for (int peer = 0; peer < link.size(); ++peer) {
    if (peer == link.rank()) continue;
    GR_ASSIGN_OR_RETURN(const PeerPath p,
                        PathTo(link, peer, device_, all[static_cast<size_t>(peer)], choice, "one-shot allreduce"));
    if (p == PeerPath::kHost) path = PeerPath::kHost;
  }
  return path;
}

Status OneShotPeers::Exchange(CommLink& link) {
  const int n = link.size();
  const StatusOr<PeerPath> path = ChoosePath(link);
  std::vector<int> others;
  for (int peer = 0; peer < n; ++peer) {
    if (peer != link.rank()) others.push_back(peer);
  }
  GR_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<PeerMapping>> mapped,
                      ShareOwnMemory(link, path, device_, LargeRegionBytes() + BatchRegionBytes(),
                                     ConnGroup::SegmentName(link.UniqueName(), kGpuOneShotSegmentGroup, link.rank()),
                                     others, "GPU one-shot allreduce", &mine_));
  peers_.resize(static_cast<size_t>(n));
  for (size_t k = 0; k < others.size(); ++k) peers_[static_cast<size_t>(others[k])] = std::move(mapped[k]);
  return OkStatus();
}

uint64_t OneShotPeers::LargeRegionBytes() const { return 2 * slot_bytes_ * static_cast<uint64_t>(nranks_); }

uint64_t OneShotPeers::BatchRegionBytes() const {
  return kOneShotBatchParities * batch_slot_bytes_ * static_cast<uint64_t>(nranks_);
}

void OneShotPeers::Fill(DevOneShotLaunch* l, DirectRegion region) const {
  const uint64_t offset = region == DirectRegion::kLarge ? 0 : LargeRegionBytes();
  for (int r = 0; r < kMaxOneShotRanks; ++r) {
    const bool peer = r < nranks_ && peers_[static_cast<size_t>(r)] != nullptr;
    l->peer_scratch[r] = peer ? static_cast<uint8_t*>(peers_[static_cast<size_t>(r)]->device_ptr()) + offset : nullptr;
  }
  l->scratch = static_cast<const uint8_t*>(mine_->device_ptr()) + offset;
  Counters* counters = static_cast<Counters*>(counters_) + RegionIndex(region);
  l->call_counter = &counters->calls;
  l->blocks_done = &counters->blocks_done;
  l->slot_bytes = region == DirectRegion::kLarge ? slot_bytes_ : batch_slot_bytes_;
  l->parities = region == DirectRegion::kLarge ? 2u : kOneShotBatchParities;
  l->nranks = nranks_;
  l->rank = rank_;
}

OneShotPeers::~OneShotPeers() {
  cudaSetDevice(device_);
  if (counters_ != nullptr) cudaFree(counters_);
}

}  // namespace gpurun::coll
