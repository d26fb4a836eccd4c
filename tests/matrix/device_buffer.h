// Device mode of coll_matrix (--device=cuda): where the buffers of a call
// live. Each side of a call (send, receive) has a device mirror of its host
// GuardedBuffer. Before the call the whole host image (lead guards, poison,
// inputs, trailing guards) is copied over, and the call gets the device
// address of the data; after it the image is copied back, so the host checks
// (contents, untouched poison, guards, unchanged inputs) judge what the
// collective did to device memory.
//
// A mirror's image starts at the base of its cudaMalloc allocation, and the
// host buffers of device mode are made with a lead of kDeviceLead guard
// bytes, so the data a call sees lies `offset` bytes (0, 4, 8, 12) past a
// 256-byte aligned address of a cudaMalloc'd block, with guard bytes from the
// block's start up to it and kGuardBytes after it.
//
// This header has no CUDA in it: the CUDA implementation (device_buffer.cc)
// is compiled in CUDA builds only, and the tests of the checks use a fake
// whose "device" memory is host memory.
#ifndef GPURUN_TESTS_MATRIX_DEVICE_BUFFER_H_
#define GPURUN_TESTS_MATRIX_DEVICE_BUFFER_H_

#include <cstddef>
#include <memory>
#include <string>

#include "gpurun/gpurun.h"
#include "tests/matrix/guarded_buffer.h"

namespace gpurun::matrix {

// cudaMalloc's alignment, and the lead guard of device-mode host buffers.
inline constexpr size_t kDeviceLead = 256;

enum class Side { kSend, kRecv };

// Every method returns "" on success, else what failed (a CUDA error after a
// collective usually means the collective broke the device: fatal).
class DeviceBuffers {
 public:
  virtual ~DeviceBuffers() = default;

  // What every call passes: the program's own stream, or GR_STREAM_HOST.
  virtual grStream_t stream() const = 0;

  // Copies `host`'s image to the mirror of `side` (grown when too small) and
  // sets *data to the device address of the data. With a stream the copy is
  // ordered before the call on that stream; without, it has landed on return.
  virtual std::string Upload(Side side, const GuardedBuffer& host, unsigned char** data) = 0;

  // --graph: starts capturing stream() into a CUDA graph (relaxed mode: a
  // communicator's first call may allocate its connectors meanwhile).
  virtual std::string BeginCapture() = 0;
  // Ends the capture and launches the graph `launches` times on stream() (0:
  // discards it; the call failed), then frees it.
  virtual std::string EndCaptureAndLaunch(int launches) = 0;

  // Waits for the work on stream() (--stream: the call; else nothing).
  virtual std::string Wait() = 0;

  // Copies the mirror of `side` back over `host`'s image (laid out as at the
  // last Upload). Without a stream this does not wait for anything but its
  // own copy, so a call that returned before it completed shows.
  virtual std::string Download(Side side, GuardedBuffer& host) = 0;

  // One line for the log: "cuda device 1 of 2 (NVIDIA H200, 0000:19:00.0), stream".
  virtual std::string Describe() const = 0;
};

// The CUDA implementation (CUDA builds only, GPURUN_HAVE_CUDA): selects
// device GPURUN_LOCAL_RANK modulo cudaGetDeviceCount and creates the stream.
// `use_stream`: the calls pass it (--stream); else they pass GR_STREAM_HOST
// and the stream only carries this class's copies. nullptr with *error when
// no device can be used.
std::unique_ptr<DeviceBuffers> MakeCudaBuffers(bool use_stream, std::string* error);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_DEVICE_BUFFER_H_
