// CUDA IPC device transfers (see ipc_transfer.h).
#include "p2p/cuda_ipc/ipc_transfer.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "p2p/cuda_ipc/copy_kernel.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "p2p/cuda_ipc/pointer_kind.h"
#include "runtime/base/param_table.h"

namespace gpurun::cuda {
namespace {

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(p2p::DeviceExport::handle));

std::string Address(const void* p) {
  char text[32];
  std::snprintf(text, sizeof(text), "%p", p);
  return text;
}

// Makes `device` current while it lives, then restores the caller's device.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&saved_) != cudaSuccess) saved_ = -1;
    if (device != saved_) {
      status_ = FromCuda(cudaSetDevice(device), "cudaSetDevice");
      switched_ = status_.ok() && saved_ >= 0;
    }
  }
  ~DeviceScope() {
    if (switched_) cudaSetDevice(saved_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
  const Status& status() const { return status_; }

 private:
  int saved_ = -1;
  bool switched_ = false;
  Status status_;
};

int CurrentDevice() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : 0;
}

class IpcTransfer final : public p2p::DeviceTransfer {
 public:
  ~IpcTransfer() override {
    // At process exit CUDA may be unloading already: errors are of no use here.
    for (auto& [source, list] : mappings_) {
      for (const Mapping& m : list) Close(m);
    }
    for (auto& [device, stream] : streams_) {
      DeviceScope scope(device);
      cudaStreamDestroy(stream);
    }
  }

  bool IsDevice(const void* p) override { return KindOf(p).device; }

  Status Export(const void* data, size_t bytes, p2p::DeviceExport* out) override {
    const DeviceRange range = RangeOf(data);
    if (!range.device) return InvalidArgument("the buffer at " + Address(data) + " is not GPU memory");
    if (range.managed) {
      return Unsupported("the GPU buffer at " + Address(data) +
                         " is managed memory (cudaMallocManaged), which CUDA IPC cannot export; use cudaMalloc");
    }
    const auto offset = static_cast<uint64_t>(static_cast<const char*>(data) - static_cast<const char*>(range.base));
    if (offset + bytes > range.size) {
      return InvalidArgument("the message of " + std::to_string(bytes) + " bytes at " + Address(data) +
                             " runs past the end of its GPU allocation (" + std::to_string(range.size) +
                             " bytes from " + Address(range.base) + ")");
    }
    GR_ASSIGN_OR_RETURN(const cudaIpcMemHandle_t handle, HandleOf(range, data));
    out->pid = static_cast<uint64_t>(getpid());
    out->address = reinterpret_cast<uint64_t>(data);
    out->offset = offset;
    out->buffer_id = range.buffer_id;
    out->size = range.size;
    std::memcpy(out->handle, &handle, sizeof(handle));
    return OkStatus();
  }

  Status Pull(int world_source, const p2p::DeviceExport& from, void* dst, size_t bytes) override {
    if (bytes == 0) return OkStatus();
    const PointerKind dst_kind = KindOf(dst);
    const int device = dst_kind.device ? dst_kind.ordinal : CurrentDevice();
    const char* src = nullptr;
    if (from.pid == static_cast<uint64_t>(getpid())) {
      src = reinterpret_cast<const char*>(from.address);
    } else {
      GR_ASSIGN_OR_RETURN(void* base, Open(world_source, from, device));
      src = static_cast<const char*>(base) + from.offset;
    }
    const bool sm = use_sm_ && dst_kind.device && reinterpret_cast<uintptr_t>(dst) % 16 == 0 &&
                    reinterpret_cast<uintptr_t>(src) % 16 == 0;
    return CopyOn(device, dst, src, bytes, sm)
        .WithContext("copying " + std::to_string(bytes) + " bytes of GPU memory from world rank " +
                     std::to_string(world_source));
  }

  Status Copy(void* dst, const void* src, size_t bytes) override {
    if (bytes == 0) return OkStatus();
    const PointerKind dst_kind = KindOf(dst);
    const PointerKind src_kind = dst_kind.device ? dst_kind : KindOf(src);
    if (!src_kind.device) {
      std::memcpy(dst, src, bytes);
      return OkStatus();
    }
    return CopyOn(src_kind.ordinal, dst, src, bytes, false);
  }

 private:
  // An opened allocation of a peer, known by the peer's buffer id: the handle
  // bytes of one allocation differ from export to export, and opening one
  // allocation twice in a process fails (cudaErrorAlreadyMapped), also on
  // another GPU.
  // The export of an allocation, made once: buffer ids are never reused, so
  // an entry cannot go stale; the oldest go beyond kExportsKept.
  StatusOr<cudaIpcMemHandle_t> HandleOf(const DeviceRange& range, const void* data) {
    if (auto it = exports_.find(range.buffer_id); it != exports_.end()) return it->second;
    DeviceScope scope(range.ordinal);
    GR_RETURN_IF_ERROR(scope.status());
    cudaIpcMemHandle_t handle;
    const cudaError_t e = cudaIpcGetMemHandle(&handle, const_cast<void*>(range.base));
    if (e != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it for the application
      return Unsupported("CUDA IPC cannot export the GPU buffer at " + Address(data) + " (" + cudaGetErrorName(e) +
                         ": " + cudaGetErrorString(e) +
                         "); memory from cudaMallocAsync pools or cuMemCreate cannot be sent between processes "
                         "this way, use cudaMalloc");
    }
    if (exports_.size() >= kExportsKept) exports_.erase(exports_.begin());  // the lowest id: most likely the oldest
    exports_.emplace(range.buffer_id, handle);
    return handle;
  }

  struct Mapping {
    uint64_t buffer_id;
    uint64_t remote_base, remote_size;  // the allocation in the sender's address space
    int device;
    void* base;
    uint64_t last_use;
  };

  static void Close(const Mapping& m) {
    DeviceScope scope(m.device);
    cudaIpcCloseMemHandle(m.base);
  }

  StatusOr<void*> Open(int world_source, const p2p::DeviceExport& from, int device) {
    std::vector<Mapping>& list = mappings_[world_source];
    for (Mapping& m : list) {
      if (m.buffer_id == from.buffer_id) {  // opened on any GPU: a UVA address valid in the whole process
        m.last_use = ++uses_;
        return m.base;
      }
    }
    if (list.size() >= static_cast<size_t>(kCachedPerPeer)) {
      auto oldest = list.begin();
      for (auto it = list.begin(); it != list.end(); ++it) {
        if (it->last_use < oldest->last_use) oldest = it;
      }
      Close(*oldest);
      list.erase(oldest);
    }
    DeviceScope scope(device);
    GR_RETURN_IF_ERROR(scope.status());
    cudaIpcMemHandle_t handle;
    std::memcpy(&handle, from.handle, sizeof(handle));
    void* base = nullptr;
    cudaError_t e = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess);
    const uint64_t remote_base = from.address - from.offset;
    // The driver maps the memory under an allocation, and small cudaMalloc
    // blocks share 2 MiB pages: a block the sender freed and whose memory a
    // new block reuses is still mapped here under its old id. Close the
    // sender's mappings near the new block (by the sender's addresses, in 2 MiB
    // pages) and retry; then all of the sender's.
    for (int pass = 0; pass < 2 && e == cudaErrorAlreadyMapped; ++pass) {
      cudaGetLastError();
      constexpr uint64_t kPage = uint64_t{2} << 20;
      const uint64_t low = remote_base & ~(kPage - 1);
      const uint64_t high = (remote_base + from.size + kPage - 1) & ~(kPage - 1);
      std::erase_if(list, [&](const Mapping& m) {
        const bool near = m.remote_base < high && m.remote_base + m.remote_size > low;
        if (pass == 1 || near) Close(m);
        return pass == 1 || near;
      });
      e = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess);
    }
    if (e != cudaSuccess) {
      cudaGetLastError();
      const bool no_peer = e == cudaErrorPeerAccessUnsupported || e == cudaErrorInvalidDevice;
      return Status(no_peer ? grUnsupported : grSystemError,
                    "cannot open the GPU buffer of world rank " + std::to_string(world_source) +
                        " through CUDA IPC on GPU " + std::to_string(device) + " (" + cudaGetErrorName(e) + ": " +
                        cudaGetErrorString(e) + ")" + (no_peer ? "; the two GPUs have no peer access" : ""));
    }
    Mapping m{};
    m.buffer_id = from.buffer_id;
    m.remote_base = remote_base;
    m.remote_size = from.size;
    m.device = device;
    m.base = base;
    m.last_use = ++uses_;
    list.push_back(m);
    return base;
  }

  // On GPU `device`: with the copy engines, or (`sm`) a copy kernel.
  Status CopyOn(int device, void* dst, const void* src, size_t bytes, bool sm) {
    DeviceScope scope(device);
    GR_RETURN_IF_ERROR(scope.status());
    cudaStream_t& stream = streams_[device];
    if (stream == nullptr) GR_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    if (sm) {
      GR_CUDA_RETURN_IF_ERROR(LaunchCopy(dst, src, bytes, copy_blocks_, stream));
    } else {
      GR_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream));
    }
    GR_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    return OkStatus();
  }

  static constexpr size_t kExportsKept = 256;
  std::map<uint64_t, cudaIpcMemHandle_t> exports_;  // by buffer id
  std::map<int, cudaStream_t> streams_;             // by device: copies are ordered after nothing of the application
  std::map<int, std::vector<Mapping>> mappings_;    // by sender world rank
  uint64_t uses_ = 0;
  const bool use_sm_ = params::kP2pDeviceCopy.Get() == 1;  // GPURUN_P2P_DEVICE_COPY=sm
  const int copy_blocks_ = static_cast<int>(params::kP2pCopyBlocks.Get());
};

}  // namespace

std::unique_ptr<p2p::DeviceTransfer> MakeIpcTransfer() { return std::make_unique<IpcTransfer>(); }

}  // namespace gpurun::cuda
