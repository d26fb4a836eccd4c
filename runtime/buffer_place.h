// Where a call's buffers live, decided per call: host memory (the host
// executor and the point-to-point engine) or device memory of one GPU (the
// GPU executor, coll/gpu). In a build without CUDA, or a process without the
// CUDA driver, everything is host memory and DeviceMemoryPossible() is false,
// so the quick host paths stay as they are; otherwise they step aside and
// every call's buffers are classified (p2p/cuda_ipc/pointer_kind.h).
#ifndef GPURUN_RUNTIME_BUFFER_PLACE_H_
#define GPURUN_RUNTIME_BUFFER_PLACE_H_

#include <cstddef>
#include <initializer_list>

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

namespace gpurun {

struct Placement {
  bool device = false;  // device memory of GPU `ordinal`
  int ordinal = -1;
};

// Whether this process may hold device memory at all (cached after the first call).
bool DeviceMemoryPossible();

// The placement of a ring/tree collective's buffers (either may be null:
// unused on this rank). Mixed host and device buffers, or buffers on two
// GPUs, are InvalidArgument; a non-null stream with host buffers is
// Unsupported (streams order device work).
StatusOr<Placement> PlaceCollective(const void* send, const void* recv, grStream_t stream);

// The GPU of a stream-ordered call's buffers: every non-null buffer must be
// device memory (else Unsupported naming `names[i]`), all on one GPU (else
// InvalidArgument); with no buffer at all (count 0), the current device.
StatusOr<int> StreamDeviceOf(std::initializer_list<const void*> buffers, std::initializer_list<const char*> names);

// The GPU whose memory holds `p`, or -1 for host memory.
int DeviceOrdinalOf(const void* p);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_BUFFER_PLACE_H_
