// PCI device locality with hwloc (see hwloc_locality.h).
#include "topo/hwloc_locality.h"

#include <cstdlib>

#include "topo/pci_bus_id.h"

namespace gpurun::topo {
namespace {

// Discovery components that find GPUs or displays by themselves.
constexpr const char* kSkippedComponents[] = {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl"};

// hwloc's list syntax of `set` ("0-3,8"); "" for an empty or missing set.
std::string ListString(hwloc_const_bitmap_t set) {
  if (set == nullptr || hwloc_bitmap_iszero(set)) return "";
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return "";
  std::string result(text);
  std::free(text);
  return result;
}

}  // namespace

StatusOr<PciTopology> PciTopology::Load() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return SystemError("hwloc_topology_init failed");
  PciTopology topology(raw);
  // An unknown component name (an hwloc built without it) is not an error.
  for (const char* name : kSkippedComponents) {
    (void)hwloc_topology_set_components(raw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
  }
  if (hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0) {
    return SystemError("hwloc_topology_set_io_types_filter failed");
  }
  if (hwloc_topology_load(raw) != 0) return SystemError("hwloc_topology_load failed");
  return topology;
}

StatusOr<PciLocality> PciTopology::Locate(std::string_view bus_id) const {
  const std::optional<PciAddress> address = ParsePciBusId(bus_id);
  if (!address) return InvalidArgument("not a PCI bus id: '" + std::string(bus_id) + "'");
  hwloc_obj_t pci =
      hwloc_get_pcidev_by_busid(topology_.get(), address->domain, address->bus, address->device, address->function);
  if (pci == nullptr) return Unsupported("hwloc knows no PCI device " + FormatPciBusId(*address));
  hwloc_obj_t ancestor = hwloc_get_non_io_ancestor_obj(topology_.get(), pci);
  PciLocality locality;
  if (ancestor == nullptr) return locality;
  locality.cpus = ListString(ancestor->cpuset);
  if (ancestor->nodeset != nullptr && hwloc_bitmap_weight(ancestor->nodeset) == 1) {
    locality.numa_node = hwloc_bitmap_first(ancestor->nodeset);
  }
  return locality;
}

}  // namespace gpurun::topo
