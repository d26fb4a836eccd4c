// NVLink counts between the GPUs of one node, from each GPU's list of active
// links (nvml_loader.h). Pure code, no NVML calls, so it is tested with made-up
// link lists: direct GPU-GPU bridges, NVSwitch systems and missing data.
#ifndef GPURUN_TOPO_NVLINK_MATRIX_H_
#define GPURUN_TOPO_NVLINK_MATRIX_H_

#include <optional>
#include <string>
#include <vector>

#include "topo/nvml_loader.h"

namespace gpurun::topo {

// counts[i][j] = links usable from GPU i to GPU j:
//  - direct links: links of i whose far end is j's bus id (and not a switch);
//  - plus, when both have links to NVSwitches, min(switch links of i, of j):
//    on an NVSwitch system every GPU reaches every other through its switch
//    links (what `nvidia-smi topo -m` shows as NV18 on HGX H100/H200).
// counts[i][i] = 0. When links[i] or links[j] is nullopt (NVML could not say),
// counts[i][j] = kUnknown (gpu_info.h). `links` has one entry per bus id;
// bus ids are canonical (pci_bus_id.h). Links to devices that are not in
// `gpu_bus_ids` (GPUs hidden by CUDA_VISIBLE_DEVICES) are ignored.
std::vector<std::vector<int>> CountNvLinks(const std::vector<std::string>& gpu_bus_ids,
                                           const std::vector<std::optional<std::vector<NvLinkEnd>>>& links);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_NVLINK_MATRIX_H_
