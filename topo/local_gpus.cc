// Local GPU discovery: CUDA device queries, then hwloc locality and NVML
// NVLink counts (see local_gpus.h).
#include "topo/local_gpus.h"

#include <optional>
#include <string>

#include "runtime/base/log.h"
#include "topo/hwloc_locality.h"
#include "topo/nvlink_matrix.h"
#include "topo/nvml_loader.h"
#include "topo/pci_bus_id.h"

#if GPURUN_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace gpurun::topo {
namespace {

#if GPURUN_HAVE_CUDA

// Fills numa_node and local_cpus of every GPU; leaves them unknown (with one
// warning) when hwloc cannot tell.
void AddLocality(std::vector<GpuInfo>& gpus) {
  StatusOr<PciTopology> topology = PciTopology::Load();
  if (!topology.ok()) {
    GR_LOG(Warn, Topo) << "GPU locality unknown: " << topology.status().ToString();
    return;
  }
  for (GpuInfo& gpu : gpus) {
    StatusOr<PciLocality> locality = topology->Locate(gpu.bus_id);
    if (!locality.ok()) {
      GR_LOG(Warn, Topo) << "GPU " << gpu.cuda_ordinal << " locality unknown: " << locality.status().message();
      continue;
    }
    gpu.numa_node = locality->numa_node;
    gpu.local_cpus = locality->cpus;
  }
}

// Fills nvlinks of every GPU: kUnknown to the others when NVML is missing or
// cannot list a GPU's links.
void AddNvLinks(std::vector<GpuInfo>& gpus) {
  std::vector<std::string> bus_ids;
  bus_ids.reserve(gpus.size());
  for (const GpuInfo& gpu : gpus) bus_ids.push_back(gpu.bus_id);
  std::vector<std::optional<std::vector<NvLinkEnd>>> links(gpus.size());
  // One GPU has no peer to count links to: NVML is not even loaded.
  StatusOr<const NvmlLibrary*> nvml =
      gpus.size() > 1 ? NvmlLibrary::Shared() : StatusOr<const NvmlLibrary*>(Unsupported("one GPU"));
  for (size_t i = 0; nvml.ok() && i < gpus.size(); ++i) {
    StatusOr<std::vector<NvLinkEnd>> ends = (*nvml)->ActiveNvLinks(bus_ids[i]);
    if (ends.ok()) {
      links[i] = std::move(*ends);
    } else {
      GR_LOG(Warn, Topo) << "NVLinks of GPU " << i << " unknown: " << ends.status().message();
    }
  }
  const std::vector<std::vector<int>> counts = CountNvLinks(bus_ids, links);
  for (size_t i = 0; i < gpus.size(); ++i) gpus[i].nvlinks = counts[i];
}

std::string CudaErrorText(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
}

// The number of devices; nullopt (logged) when there is no usable device or driver.
StatusOr<std::optional<int>> CudaDeviceCount() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
    (void)cudaGetLastError();  // not sticky, but leave no error behind
    GR_LOG(Info, Topo) << "no CUDA device (" << CudaErrorText(err) << ")";
    return std::optional<int>();
  }
  if (err != cudaSuccess) return SystemError("cudaGetDeviceCount: " + CudaErrorText(err));
  if (count == 0) GR_LOG(Info, Topo) << "no CUDA device (cudaGetDeviceCount returned 0)";
  return std::optional<int>(count);
}

// What CUDA says about device `ordinal`; locality and links are filled later.
StatusOr<GpuInfo> CudaGpuInfo(int ordinal) {
  cudaDeviceProp prop = {};
  cudaError_t err = cudaGetDeviceProperties(&prop, ordinal);
  if (err != cudaSuccess) {
    return SystemError("cudaGetDeviceProperties(" + std::to_string(ordinal) + "): " + CudaErrorText(err));
  }
  char bus_id[32] = {};
  err = cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), ordinal);
  if (err != cudaSuccess) {
    return SystemError("cudaDeviceGetPCIBusId(" + std::to_string(ordinal) + "): " + CudaErrorText(err));
  }
  GpuInfo gpu;
  gpu.cuda_ordinal = ordinal;
  GR_ASSIGN_OR_RETURN(gpu.bus_id, NormalizePciBusId(bus_id));
  gpu.name = prop.name;
  gpu.sm_count = prop.multiProcessorCount;
  gpu.cc_major = prop.major;
  gpu.cc_minor = prop.minor;
  gpu.total_memory = prop.totalGlobalMem;
  return gpu;
}

#endif  // GPURUN_HAVE_CUDA

}  // namespace

StatusOr<std::vector<GpuInfo>> DiscoverLocalGpus() {
#if GPURUN_HAVE_CUDA
  GR_ASSIGN_OR_RETURN(const std::optional<int> count, CudaDeviceCount());
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count.value_or(0); ++i) {
    GR_ASSIGN_OR_RETURN(GpuInfo gpu, CudaGpuInfo(i));
    gpus.push_back(std::move(gpu));
  }
  if (gpus.empty()) return gpus;
  AddLocality(gpus);
  AddNvLinks(gpus);
  GR_LOG(Info, Topo) << "found " << gpus.size() << " CUDA device(s)";
  return gpus;
#else
  GR_LOG(Info, Topo) << "no CUDA device: gpurun was built without CUDA";
  return std::vector<GpuInfo>();
#endif
}

StatusOr<bool> PeerAccess(int a, int b) {
#if GPURUN_HAVE_CUDA
  const std::string call = "PeerAccess(" + std::to_string(a) + ", " + std::to_string(b) + ")";
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess && err != cudaErrorNoDevice && err != cudaErrorInsufficientDriver) {
    return SystemError(call + ": cudaGetDeviceCount: " + CudaErrorText(err));
  }
  if (err != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky, but leave no error behind
    count = 0;
  }
  if (a < 0 || a >= count || b < 0 || b >= count) {
    return InvalidArgument(call + ": no such CUDA device (" + std::to_string(count) + " visible)");
  }
  if (a == b) return true;
  int can = 0;
  err = cudaDeviceCanAccessPeer(&can, a, b);
  if (err != cudaSuccess) return SystemError(call + ": cudaDeviceCanAccessPeer: " + CudaErrorText(err));
  return can != 0;
#else
  (void)a;
  (void)b;
  return Unsupported("PeerAccess: gpurun was built without CUDA");
#endif
}

}  // namespace gpurun::topo
