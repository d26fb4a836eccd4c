// The GPUs of this node as this process sees them: CUDA for identity and
// size, hwloc for CPU/NUMA locality, NVML (if present) for NVLink counts.
// Also declares the pure ring hints (ring_hints.h), so that callers that
// discover GPUs and plan rings need one include.
//
// Nothing here creates a CUDA context: only device queries are made.
#ifndef GPURUN_TOPO_LOCAL_GPUS_H_
#define GPURUN_TOPO_LOCAL_GPUS_H_

#include <vector>

#include "runtime/base/status.h"
#include "topo/gpu_info.h"
#include "topo/ring_hints.h"  // IWYU pragma: export

namespace gpurun::topo {

// Every CUDA device visible to this process, in CUDA ordinal order
// (result[i].cuda_ordinal == i; result[i].nvlinks has result.size() entries).
//  - A build without CUDA, no device or no (or a too old) driver: an empty
//    vector and one INFO line (subsystem TOPO) saying why.
//  - Any other CUDA error: SystemError naming the call.
//  - hwloc failing or not knowing a GPU: that locality left unknown, a warning.
//  - NVML missing: NVLink counts kUnknown, one warning per process.
// Blocking, takes tens of milliseconds (hwloc reads sysfs); thread-safe, but
// meant to be called once at initialisation and its result shared.
StatusOr<std::vector<GpuInfo>> DiscoverLocalGpus();

// Whether device `a` can map device `b`'s memory (cudaDeviceCanAccessPeer);
// true when a == b. InvalidArgument when either is not a visible device
// ordinal (so always when there is no device or driver), Unsupported in a
// build without CUDA, SystemError for other CUDA errors. Thread-safe; no
// context is created.
StatusOr<bool> PeerAccess(int a, int b);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_LOCAL_GPUS_H_
