// The GPU ring's CUDA IPC connections (ring_connectors.h).
#include "coll/gpu/ring_connectors.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/gpu/peer_reach.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// What each rank publishes about its GPU ring buffer.
struct PeerRecord {
  cuda::IpcHandle handle;
  char bus_id[32];  // PCI bus id of the rank's GPU
  int32_t nchannels;
  int32_t pad;
  uint64_t buffer_bytes;
};

uint8_t* At(void* base, uint64_t offset) { return static_cast<uint8_t*>(base) + offset; }

}  // namespace

StatusOr<std::unique_ptr<RingConnectors>> RingConnectors::Create(CommLink& link, int device, int nchannels,
                                                                 uint64_t buffer_bytes) {
  if (link.size() < 2) return InternalError("GPU ring connectors need at least two ranks");
  if (nchannels < 1 || nchannels > kMaxDeviceChannels) {
    return InvalidArgument("GPU channel count " + std::to_string(nchannels) + " is outside 1.." +
                           std::to_string(kMaxDeviceChannels));
  }
  std::unique_ptr<RingConnectors> c(new RingConnectors());
  c->device_ = device;
  c->nchannels_ = nchannels;
  c->buffer_bytes_ = buffer_bytes;
  GR_ASSIGN_OR_RETURN(
      c->mine_, cuda::IpcBuffer::Allocate(device, kControlBytes + buffer_bytes * static_cast<uint64_t>(nchannels)));
  GR_RETURN_IF_ERROR(c->Exchange(link));
  GR_RETURN_IF_ERROR(c->WriteChannels());
  GR_LOG(Info, Coll) << "GPU ring connectors ready: GPU " << device << ", " << nchannels << " channels of "
                     << buffer_bytes << " B FIFOs over CUDA IPC";
  return c;
}

Status RingConnectors::Exchange(CommLink& link) {
  PeerRecord me{};
  me.handle = mine_->handle();
  GR_ASSIGN_OR_RETURN(const std::string bus_id, BusIdOf(device_));
  std::strncpy(me.bus_id, bus_id.c_str(), sizeof(me.bus_id) - 1);
  me.nchannels = nchannels_;
  me.buffer_bytes = buffer_bytes_;
  std::vector<PeerRecord> all(static_cast<size_t>(link.size()));
  GR_RETURN_IF_ERROR(link.AllGather(&me, sizeof(me), all.data()));
  const int n = link.size();
  const int prev = (link.rank() + n - 1) % n;
  const int next = (link.rank() + 1) % n;
  for (int peer : {prev, next}) {
    const PeerRecord& r = all[static_cast<size_t>(peer)];
    if (r.nchannels != nchannels_ || r.buffer_bytes != buffer_bytes_) {
      return InvalidUsage("GPU ring set-up differs between ranks: " + link.DescribePeer(peer) + " has " +
                          std::to_string(r.nchannels) + " channels of " + std::to_string(r.buffer_bytes) +
                          " B, this rank " + std::to_string(nchannels_) + " of " + std::to_string(buffer_bytes_) +
                          " B (set GPURUN_GPU_NCHANNELS / GPURUN_GPU_BUFFSIZE alike on every rank)");
    }
    GR_RETURN_IF_ERROR(CheckPeerReach(link, peer, device_, r.bus_id, "GPU collectives"));
  }
  GR_ASSIGN_OR_RETURN(prev_, cuda::IpcMapping::Open(device_, all[static_cast<size_t>(prev)].handle));
  if (next != prev) {
    GR_ASSIGN_OR_RETURN(next_, cuda::IpcMapping::Open(device_, all[static_cast<size_t>(next)].handle));
  }
  return OkStatus();
}

Status RingConnectors::WriteChannels() {
  void* mine = mine_->data();
  void* prev = prev_->data();
  void* next = next_ != nullptr ? next_->data() : prev;
  std::vector<DevChannel> table(kMaxDeviceChannels);
  for (int ch = 0; ch < nchannels_; ++ch) {
    const uint64_t counters = kCounterStride * static_cast<uint64_t>(ch);
    const uint64_t fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(ch);
    DevChannel& d = table[static_cast<size_t>(ch)];
    d.recv.fifo = At(mine, fifo);
    d.recv.tail = reinterpret_cast<const uint64_t*>(At(mine, counters));
    d.recv.head = reinterpret_cast<uint64_t*>(At(prev, counters + 128));
    d.send.fifo = At(next, fifo);
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
  if (channels_ != nullptr) {
    cudaSetDevice(device_);
    cudaFree(channels_);
  }
}

}  // namespace gpurun::coll
