// DeviceTransfer: how the engine moves point-to-point messages whose buffers
// are GPU memory, between processes of one host. The engine owns the matching;
// this interface owns the CUDA calls (p2p/cuda_ipc/ipc_transfer.h implements
// it), so the engine builds and runs without CUDA.
//
// The protocol (a rendezvous, in the manner of UCX's cuda_ipc and Open MPI's
// smcuda): a send from device memory posts, on the ordinary wire, a small
// message flagged kFlagDeviceRts whose payload is a DeviceRts — the IPC
// export of the sender's buffer and the message size. The receiver matches it
// like any message (its header carries the real size, so probes, truncation
// and counts are those of the data), pulls the data straight from the
// sender's GPU memory into its receive buffer (host or device), and answers
// with a kFlagDeviceFin message carrying the DeviceFin; only then does the
// send complete and may the sender reuse its buffer. A device receive buffer
// that an ordinary (host) message matches gets the bytes copied in by Copy.
#ifndef GPURUN_P2P_DEVICE_TRANSFER_H_
#define GPURUN_P2P_DEVICE_TRANSFER_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "runtime/base/status.h"

namespace gpurun::p2p {

// A device buffer as another process of this host can open it.
struct DeviceExport {
  uint64_t pid = 0;         // the exporting process (a same-process pull uses `address` directly)
  uint64_t address = 0;     // the buffer in the exporter's address space
  uint64_t offset = 0;      // of `address` from the start of its allocation
  uint64_t buffer_id = 0;   // the exporter's CUDA id of that allocation (unique for the process's life)
  uint64_t size = 0;        // of that allocation
  uint8_t handle[64] = {};  // cudaIpcMemHandle_t of the allocation
};

// Payload of a kFlagDeviceRts message.
struct DeviceRts {
  uint64_t send_id = 0;  // the sender's id for this send, echoed in the DeviceFin
  uint64_t bytes = 0;    // the message size
  DeviceExport data;
};

// Payload of a kFlagDeviceFin message.
struct DeviceFin {
  uint64_t send_id = 0;
  int32_t result = 0;  // grResult_t: grSuccess, or why the receiver could not pull
  int32_t pad = 0;
};

static_assert(std::is_trivially_copyable_v<DeviceRts> && std::is_trivially_copyable_v<DeviceFin>);

class DeviceTransfer {
 public:
  virtual ~DeviceTransfer() = default;
  // Whether `p` is GPU memory (null: no).
  virtual bool IsDevice(const void* p) = 0;
  // Exports the device buffer at `data` (`bytes` long) for a peer's Pull.
  // Unsupported when CUDA IPC cannot export that memory.
  virtual Status Export(const void* data, size_t bytes, DeviceExport* out) = 0;
  // Copies the first `bytes` bytes of `from` (exported by world rank
  // `world_source`) into `dst`, host or device memory; complete on return.
  virtual Status Pull(int world_source, const DeviceExport& from, void* dst, size_t bytes) = 0;
  // Copies between any two buffers of this process, host or device; complete on return.
  virtual Status Copy(void* dst, const void* src, size_t bytes) = 0;
};

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_DEVICE_TRANSFER_H_
