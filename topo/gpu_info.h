// GpuInfo: what one process learns about one GPU of its node — identity
// (CUDA ordinal, PCI bus id, name), size (SMs, memory), CPU/NUMA locality
// (hwloc) and NVLink counts to the other local GPUs (NVML). A plain value:
// DiscoverLocalGpus (local_gpus.h) fills it, anyone may copy it.
#ifndef GPURUN_TOPO_GPU_INFO_H_
#define GPURUN_TOPO_GPU_INFO_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gpurun::topo {

// NVLink count or NUMA node that could not be determined.
inline constexpr int kUnknown = -1;

struct GpuInfo {
  int cuda_ordinal = -1;  // index for cudaSetDevice in this process (after CUDA_VISIBLE_DEVICES)
  std::string bus_id;     // canonical PCI bus id, "0000:18:00.0" (pci_bus_id.h)
  std::string name;       // "NVIDIA H200"
  int sm_count = 0;       // streaming multiprocessors
  int cc_major = 0;       // compute capability, 9.0 for H200
  int cc_minor = 0;
  uint64_t total_memory = 0;  // bytes of device memory

  // Locality, from hwloc: the NUMA node nearest the GPU (kUnknown when hwloc
  // does not know it or the GPU is equally near several nodes) and the CPUs
  // local to it in hwloc's list syntax ("0-47,96-143"; "" when unknown).
  int numa_node = kUnknown;
  std::string local_cpus;

  // Active NVLinks from this GPU to each local GPU, indexed like the vector
  // DiscoverLocalGpus returns: direct links plus, through NVSwitches, the
  // smaller of the two GPUs' switch link counts. 0 for itself; kUnknown for
  // every other GPU when NVML is unavailable.
  std::vector<int> nvlinks;
};

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_GPU_INFO_H_
