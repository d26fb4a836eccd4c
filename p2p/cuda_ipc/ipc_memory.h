// Device memory shared between processes of one host through CUDA IPC:
// IpcBuffer allocates it on a GPU (zeroed) and exports a handle; IpcMapping
// opens a peer's handle in this process (peer access enabled lazily by the
// driver). Both free their resource when destroyed; a mapping must be
// destroyed before the peer frees its buffer is not required by CUDA, but
// the peer may not free while this process still writes into it (the owner
// of both, coll/gpu, holds a barrier before freeing).
#ifndef GPURUN_P2P_CUDA_IPC_IPC_MEMORY_H_
#define GPURUN_P2P_CUDA_IPC_IPC_MEMORY_H_

#include <array>
#include <cstddef>
#include <memory>

#include "runtime/base/status.h"

namespace gpurun::cuda {

// cudaIpcMemHandle_t's bytes, so the exchange record needs no CUDA header.
using IpcHandle = std::array<char, 64>;

class IpcBuffer {
 public:
  // `bytes` of zeroed device memory on GPU `device`, exportable.
  static StatusOr<std::unique_ptr<IpcBuffer>> Allocate(int device, size_t bytes);
  ~IpcBuffer();
  IpcBuffer(const IpcBuffer&) = delete;
  IpcBuffer& operator=(const IpcBuffer&) = delete;

  void* data() const { return data_; }
  const IpcHandle& handle() const { return handle_; }

 private:
  IpcBuffer(int device, void* data, const IpcHandle& handle) : device_(device), data_(data), handle_(handle) {}
  int device_;
  void* data_;
  IpcHandle handle_;
};

class IpcMapping {
 public:
  // Maps a peer's buffer into this process (current device `device`).
  static StatusOr<std::unique_ptr<IpcMapping>> Open(int device, const IpcHandle& handle);
  ~IpcMapping();
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;

  void* data() const { return data_; }

 private:
  IpcMapping(int device, void* data) : device_(device), data_(data) {}
  int device_;
  void* data_;
};

// Copies `bytes` from host memory into new device memory of GPU `device`
// (free it with cudaFree). Like IpcBuffer::Allocate it works on a private
// non-blocking stream: neither waits for work on the program's streams, so
// both may run while a stream-ordered kernel of this process waits for a peer.
StatusOr<void*> UploadToDevice(int device, const void* src, size_t bytes);

// Copies `bytes` from host memory to `dst` (device memory of GPU `device`, or
// host memory it maps), on a private stream as UploadToDevice.
Status CopyToDevice(int device, void* dst, const void* src, size_t bytes);

}  // namespace gpurun::cuda

#endif  // GPURUN_P2P_CUDA_IPC_IPC_MEMORY_H_
