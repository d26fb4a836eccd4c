// The facts of a GPU ring that its channel count depends on
// (ring_hints.h GpuRingShape), from the ranks' GPU bus ids and the ring
// order: how many NVLinks its narrowest hop has (NVML) and how many ranks
// share one GPU.
#ifndef GPURUN_TOPO_RING_LINKS_H_
#define GPURUN_TOPO_RING_LINKS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "topo/nvml_loader.h"

namespace gpurun::topo {

// A GPU's active NVLinks by its canonical bus id; nullopt when not known.
using NvLinksOf = std::function<std::optional<std::vector<NvLinkEnd>>(const std::string& bus_id)>;

// The NVLinks (nvlink_matrix.h CountNvLinks: direct plus switch links) of
// the narrowest hop between two different GPUs as the ring `order`
// (order[k]: the rank at position k) goes round ranks whose GPUs have the
// bus ids `bus_id_per_rank` (any spelling pci_bus_id.h parses; text that
// does not parse is compared as it is). kNoGpuHop (ring_hints.h) when every
// hop stays on one GPU; kUnknown when a hop's GPUs' links are not known.
int NarrowestRingHop(const std::vector<std::string>& bus_id_per_rank, const std::vector<int>& order,
                     const NvLinksOf& links_of);

// The same with the links NVML reports (NvmlLibrary::Shared; kUnknown for
// every hop when NVML is missing, which Shared logs once). Not loaded at all
// when every hop stays on one GPU.
int NarrowestRingHopFromNvml(const std::vector<std::string>& bus_id_per_rank, const std::vector<int>& order);

// The most ranks whose bus ids name the same GPU; 0 for no ranks.
int MostRanksPerGpu(const std::vector<std::string>& bus_id_per_rank);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_RING_LINKS_H_
