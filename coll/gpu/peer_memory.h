// Memory a rank of the GPU path allocates for its peers to map (FIFOs and
// counters of ring_connectors.h and p2p_connection.h), on one of two paths:
//   kCudaIpc  the rank's GPU memory, exported through CUDA IPC — between
//             GPUs with peer access (NVLink or PCIe P2P), or one GPU shared;
//   kHost     host shared memory (a POSIX segment) registered with CUDA in
//             every process that maps it, so kernels on both GPUs load and
//             store it over the host link — where the GPUs have no peer
//             access (NCCL's SHM transport), or when GPURUN_GPU_PATH=host.
// The owner describes its memory in a PeerMemoryRecord; peers open it with
// PeerMapping. Both give a device pointer for kernels of this process.
//
// Set-up works on private streams only (see p2p/cuda_ipc/ipc_memory.h).
#ifndef GPURUN_COLL_GPU_PEER_MEMORY_H_
#define GPURUN_COLL_GPU_PEER_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coll/host/comm_link.h"
#include "p2p/cuda_ipc/ipc_memory.h"
#include "p2p/shm/shm_segment.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Group numbers of the host path's segment names (coll/host/conn_group.h's
// SegmentName, in a range above the host executor's groups): the ring's, the
// one-shot allreduce's, the tree's, and a pair connection's (plus the peer's rank).
inline constexpr int kGpuRingSegmentGroup = 1000;
inline constexpr int kGpuOneShotSegmentGroup = 1001;
inline constexpr int kGpuTreeSegmentGroup = 1002;
inline constexpr int kGpuP2pSegmentGroupBase = 2000;

enum class PeerPath : uint32_t { kCudaIpc = 0, kHost = 1 };
const char* PeerPathName(PeerPath path);

// GPURUN_GPU_PATH.
enum class PathChoice { kAuto, kCudaIpc, kHost };
StatusOr<PathChoice> LoadPathChoice();

// What a rank says about its GPU before any memory is made.
struct GpuIdentity {
  char bus_id[32];  // PCI bus id of its GPU
};
StatusOr<GpuIdentity> IdentityOf(int device);

// The path between GPU `device` of this rank and `peer`'s GPU: kCudaIpc when
// they are one GPU or have peer access, kHost otherwise (or as `choice`
// forces); Unsupported for a peer on another host (`what` has no NET path:
// the ring's and the point-to-point connections have their own) and for choice kCudaIpc
// without peer access, naming both GPUs.
StatusOr<PeerPath> PathTo(CommLink& link, int peer, int device, const GpuIdentity& theirs, PathChoice choice,
                          const char* what);

// The published description of an OwnMemory.
struct PeerMemoryRecord {
  uint32_t path;  // PeerPath
  uint32_t pad;
  uint64_t bytes;
  cuda::IpcHandle handle;  // kCudaIpc
  char shm_name[96];       // kHost
};

// The two records every connection set-up exchanges (ring_connectors.h,
// p2p_connection.h): first the rank's GPU and the FIFO shape, then its
// buffer — or that it has none (ok == 0: its set-up failed), so no peer
// waits for a buffer that will not come.
struct ConnectionShape {
  GpuIdentity gpu;
  int32_t nchannels;
  int32_t pad;
  uint64_t buffer_bytes;
};
struct MemoryOffer {
  PeerMemoryRecord memory;
  int32_t ok;
  int32_t pad;
};

// InvalidUsage when `peer`'s shape differs from `mine`, naming both and the
// variables (`params`, "GPURUN_GPU_NCHANNELS / GPURUN_GPU_BUFFSIZE") to set
// alike; `what` names the set-up.
Status CheckSameShape(CommLink& link, int peer, const ConnectionShape& mine, const ConnectionShape& theirs,
                      const char* what, const char* params);

class OwnMemory;

// The second record of a set-up: makes *mine (`bytes` on `path`, segment
// `shm_name`) unless `path` already failed, and describes it — or, when
// either failed, says so (ok == 0). *made is why not (OkStatus when made).
MemoryOffer OfferOwnMemory(const StatusOr<PeerPath>& path, int device, uint64_t bytes, const std::string& shm_name,
                           std::unique_ptr<OwnMemory>* mine, Status* made);

class OwnMemory {
 public:
  // `bytes` of zeroed memory on `path`; `shm_name` names the segment of kHost.
  static StatusOr<std::unique_ptr<OwnMemory>> Create(PeerPath path, int device, uint64_t bytes,
                                                     const std::string& shm_name);
  ~OwnMemory();
  OwnMemory(const OwnMemory&) = delete;
  OwnMemory& operator=(const OwnMemory&) = delete;

  void* device_ptr() const { return device_ptr_; }
  const PeerMemoryRecord& record() const { return record_; }
  PeerPath path() const { return static_cast<PeerPath>(record_.path); }
  // Removes a kHost segment's name once every peer mapped it (no-op for kCudaIpc).
  Status Unlink();

 private:
  OwnMemory() = default;
  int device_ = -1;
  PeerMemoryRecord record_{};
  std::unique_ptr<cuda::IpcBuffer> ipc_;
  p2p::shm::ShmSegment shm_;
  bool registered_ = false;
  void* device_ptr_ = nullptr;
};

// Zeroed pinned host memory that this process's GPU maps (cudaHostAlloc,
// mapped and portable): this rank's side of a NET connection
// (coll/host/gpu_net_proxy.h), which no peer maps.
class MappedHostMemory {
 public:
  static StatusOr<std::unique_ptr<MappedHostMemory>> Create(uint64_t bytes);
  ~MappedHostMemory();
  MappedHostMemory(const MappedHostMemory&) = delete;
  MappedHostMemory& operator=(const MappedHostMemory&) = delete;

  uint8_t* host() const { return host_; }
  // The device address of host() + offset.
  uint8_t* device(uint64_t offset) const { return device_ + offset; }

 private:
  MappedHostMemory() = default;
  uint8_t* host_ = nullptr;
  uint8_t* device_ = nullptr;
};

class PeerMapping {
 public:
  static StatusOr<std::unique_ptr<PeerMapping>> Open(const PeerMemoryRecord& record, int device);
  ~PeerMapping();
  PeerMapping(const PeerMapping&) = delete;
  PeerMapping& operator=(const PeerMapping&) = delete;

  void* device_ptr() const { return device_ptr_; }

 private:
  PeerMapping() = default;
  int device_ = -1;
  std::unique_ptr<cuda::IpcMapping> ipc_;
  p2p::shm::ShmSegment shm_;
  bool registered_ = false;
  void* device_ptr_ = nullptr;
};

// The memory step of a collective set-up over `link` (the ring's, the
// one-shot allreduce's), reached by every rank also when its own `path`
// failed, so no rank waits for one that gave up: makes *mine
// (OfferOwnMemory), gathers every rank's offer, maps the buffers of `peers`
// (other ranks, no duplicates; the result is in their order) and, once every
// rank has mapped its peers, removes *mine's host segment name. When any
// rank's part failed, every rank fails: this rank with its own cause, the
// others with a RemoteError naming it (`what` names the set-up).
StatusOr<std::vector<std::unique_ptr<PeerMapping>>> ShareOwnMemory(CommLink& link, const StatusOr<PeerPath>& path,
                                                                   int device, uint64_t bytes,
                                                                   const std::string& shm_name,
                                                                   const std::vector<int>& peers, const char* what,
                                                                   std::unique_ptr<OwnMemory>* mine);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_PEER_MEMORY_H_
