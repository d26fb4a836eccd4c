// GPU-path memory for peers, on CUDA IPC or host shared memory (peer_memory.h).
#include "coll/gpu/peer_memory.h"

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <vector>

#include "coll/gpu/peer_reach.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

// Registers a segment with CUDA (mapped, portable to every device of this
// process) and returns the device pointer kernels use.
StatusOr<void*> Register(int device, const p2p::shm::ShmSegment& seg) {
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  GR_CUDA_RETURN_IF_ERROR(cudaHostRegister(seg.data(), seg.size(), cudaHostRegisterMapped | cudaHostRegisterPortable));
  void* dev = nullptr;
  const cudaError_t err = cudaHostGetDevicePointer(&dev, seg.data(), 0);
  if (err != cudaSuccess) {
    cudaHostUnregister(seg.data());
    return cuda::FromCuda(err, "cudaHostGetDevicePointer");
  }
  return dev;
}

void Unregister(int device, const p2p::shm::ShmSegment& seg) {
  cudaSetDevice(device);
  if (const cudaError_t err = cudaHostUnregister(seg.data()); err != cudaSuccess) {
    GR_LOG(Warn, Coll) << "cudaHostUnregister of " << seg.name() << " failed: " << cudaGetErrorString(err);
  }
}

}  // namespace

const char* PeerPathName(PeerPath path) { return path == PeerPath::kHost ? "host memory" : "CUDA IPC"; }

StatusOr<PathChoice> LoadPathChoice() {
  switch (params::kGpuPath.Get()) {
    case 1: return PathChoice::kCudaIpc;
    case 2: return PathChoice::kHost;
    default: return PathChoice::kAuto;
  }
}

StatusOr<GpuIdentity> IdentityOf(int device) {
  GpuIdentity id{};
  GR_ASSIGN_OR_RETURN(const std::string bus, BusIdOf(device));
  std::strncpy(id.bus_id, bus.c_str(), sizeof(id.bus_id) - 1);
  return id;
}

StatusOr<PeerPath> PathTo(CommLink& link, int peer, int device, const GpuIdentity& theirs, PathChoice choice,
                          const char* what) {
  char bus[sizeof(theirs.bus_id) + 1] = {};
  std::memcpy(bus, theirs.bus_id, sizeof(theirs.bus_id));
  if (!link.SameHost(peer)) {
    return Unsupported(
        std::string(what) +
        " across hosts is not built (the GPU ring and stream-ordered point-to-point have NET connections): " +
        link.DescribePeer(peer) + " is on another host");
  }
  if (choice == PathChoice::kHost) return PeerPath::kHost;
  GR_ASSIGN_OR_RETURN(const bool reach, PeerAccess(device, bus));
  if (reach) return PeerPath::kCudaIpc;
  if (choice == PathChoice::kCudaIpc) {
    GR_ASSIGN_OR_RETURN(const std::string mine, BusIdOf(device));
    return Unsupported(std::string(what) + ": GPU " + mine + " cannot access GPU " + bus + " of " +
                       link.DescribePeer(peer) + " as a peer, and GPURUN_GPU_PATH=ipc forbids the host-memory path");
  }
  return PeerPath::kHost;
}

Status CheckSameShape(CommLink& link, int peer, const ConnectionShape& mine, const ConnectionShape& theirs,
                      const char* what, const char* params) {
  if (theirs.nchannels == mine.nchannels && theirs.buffer_bytes == mine.buffer_bytes) return OkStatus();
  return InvalidUsage(std::string(what) + " set-up differs between ranks: " + link.DescribePeer(peer) + " has " +
                      std::to_string(theirs.nchannels) + " channels of " + std::to_string(theirs.buffer_bytes) +
                      " B, this rank " + std::to_string(mine.nchannels) + " of " + std::to_string(mine.buffer_bytes) +
                      " B (set " + params + " alike on every rank)");
}

MemoryOffer OfferOwnMemory(const StatusOr<PeerPath>& path, int device, uint64_t bytes, const std::string& shm_name,
                           std::unique_ptr<OwnMemory>* mine, Status* made) {
  *made = path.status();
  if (made->ok()) {
    auto own = OwnMemory::Create(*path, device, bytes, shm_name);
    if (own.ok()) {
      *mine = std::move(own).value();
    } else {
      *made = own.status();
    }
  }
  MemoryOffer offer{};
  if (made->ok()) offer.memory = (*mine)->record();
  offer.ok = made->ok() ? 1 : 0;
  return offer;
}

namespace {

// Every rank's ok flag of one step: this rank's own failure, else a
// RemoteError naming the first rank that failed.
Status AllRanksOk(CommLink& link, const Status& mine, const std::vector<char>& oks, const char* what) {
  GR_RETURN_IF_ERROR(mine);
  for (int rank = 0; rank < link.size(); ++rank) {
    if (oks[static_cast<size_t>(rank)] == 0) {
      return RemoteError(std::string(what) + " set-up failed on " + link.DescribePeer(rank));
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<std::unique_ptr<PeerMapping>>> ShareOwnMemory(CommLink& link, const StatusOr<PeerPath>& path,
                                                                   int device, uint64_t bytes,
                                                                   const std::string& shm_name,
                                                                   const std::vector<int>& peers, const char* what,
                                                                   std::unique_ptr<OwnMemory>* mine) {
  const auto n = static_cast<size_t>(link.size());
  Status made;
  const MemoryOffer me = OfferOwnMemory(path, device, bytes, shm_name, mine, &made);
  std::vector<MemoryOffer> offers(n);
  GR_RETURN_IF_ERROR(link.AllGather(&me, sizeof(me), offers.data()));
  std::vector<char> oks(n);
  for (size_t r = 0; r < n; ++r) oks[r] = static_cast<char>(offers[r].ok != 0);
  GR_RETURN_IF_ERROR(AllRanksOk(link, made, oks, what));
  // Mapping may fail too: a second round tells every rank, and ends only
  // once every rank mapped what it needs, so a host segment's name can go.
  std::vector<std::unique_ptr<PeerMapping>> mapped;
  Status opened;
  for (int peer : peers) {
    auto m = PeerMapping::Open(offers[static_cast<size_t>(peer)].memory, device);
    if (!m.ok()) {
      opened = m.status();
      break;
    }
    mapped.push_back(std::move(m).value());
  }
  const char ok = opened.ok() ? 1 : 0;
  GR_RETURN_IF_ERROR(link.AllGather(&ok, 1, oks.data()));
  GR_RETURN_IF_ERROR(AllRanksOk(link, opened, oks, what));
  GR_RETURN_IF_ERROR((*mine)->Unlink());
  return mapped;
}

StatusOr<std::unique_ptr<OwnMemory>> OwnMemory::Create(PeerPath path, int device, uint64_t bytes,
                                                       const std::string& shm_name) {
  std::unique_ptr<OwnMemory> m(new OwnMemory());
  m->device_ = device;
  m->record_.path = static_cast<uint32_t>(path);
  m->record_.bytes = bytes;
  if (path == PeerPath::kCudaIpc) {
    GR_ASSIGN_OR_RETURN(m->ipc_, cuda::IpcBuffer::Allocate(device, bytes));
    m->record_.handle = m->ipc_->handle();
    m->device_ptr_ = m->ipc_->data();
    return m;
  }
  if (shm_name.size() >= sizeof(m->record_.shm_name)) {
    return InternalError("shared-memory segment name too long: " + shm_name);
  }
  std::strncpy(m->record_.shm_name, shm_name.c_str(), sizeof(m->record_.shm_name) - 1);
  GR_ASSIGN_OR_RETURN(m->shm_, p2p::shm::ShmSegment::Create(shm_name, bytes));
  GR_ASSIGN_OR_RETURN(m->device_ptr_, Register(device, m->shm_));
  m->registered_ = true;
  return m;
}

Status OwnMemory::Unlink() {
  return record_.path == static_cast<uint32_t>(PeerPath::kHost) ? shm_.Unlink() : OkStatus();
}

OwnMemory::~OwnMemory() {
  if (registered_) Unregister(device_, shm_);
}

StatusOr<std::unique_ptr<PeerMapping>> PeerMapping::Open(const PeerMemoryRecord& record, int device) {
  std::unique_ptr<PeerMapping> m(new PeerMapping());
  m->device_ = device;
  if (record.path == static_cast<uint32_t>(PeerPath::kCudaIpc)) {
    GR_ASSIGN_OR_RETURN(m->ipc_, cuda::IpcMapping::Open(device, record.handle));
    m->device_ptr_ = m->ipc_->data();
    return m;
  }
  if (record.path != static_cast<uint32_t>(PeerPath::kHost)) {
    return InternalError("unknown GPU peer memory path " + std::to_string(record.path));
  }
  char name[sizeof(record.shm_name) + 1] = {};
  std::memcpy(name, record.shm_name, sizeof(record.shm_name));
  GR_ASSIGN_OR_RETURN(m->shm_, p2p::shm::ShmSegment::Open(name, record.bytes));
  GR_ASSIGN_OR_RETURN(m->device_ptr_, Register(device, m->shm_));
  m->registered_ = true;
  return m;
}

PeerMapping::~PeerMapping() {
  if (registered_) Unregister(device_, shm_);
}

StatusOr<std::unique_ptr<MappedHostMemory>> MappedHostMemory::Create(uint64_t bytes) {
  std::unique_ptr<MappedHostMemory> m(new MappedHostMemory());
  void* host = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&host, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
  m->host_ = static_cast<uint8_t*>(host);
  std::memset(host, 0, bytes);
  void* dev = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(&dev, host, 0));
  m->device_ = static_cast<uint8_t*>(dev);
  return m;
}

MappedHostMemory::~MappedHostMemory() {
  if (host_ != nullptr) cudaFreeHost(host_);
}

}  // namespace gpurun::coll
