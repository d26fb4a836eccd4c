// Where a PCI device sits relative to the CPUs: its nearest NUMA node and the
// CPUs local to it, read from hwloc with PCI devices kept. Unlike the
// launcher's CPU-only topology (runtime/launcher/topology.h) this one keeps
// I/O objects, so it costs more to load: load it once per discovery.
#ifndef GPURUN_TOPO_HWLOC_LOCALITY_H_
#define GPURUN_TOPO_HWLOC_LOCALITY_H_

#include <hwloc.h>

#include <memory>
#include <string>
#include <string_view>

#include "runtime/base/status.h"
#include "topo/gpu_info.h"

namespace gpurun::topo {

struct PciLocality {
  int numa_node = kUnknown;  // the one NUMA node of the device's CPU-side ancestor, else kUnknown
  std::string cpus;          // CPUs of that ancestor in hwloc list syntax: "0-47,96-143"
};

// This node's topology with PCI devices (hwloc I/O filter KEEP_IMPORTANT,
// which keeps GPUs, NICs and the bridges above them). Not thread-safe to
// load; Locate may be called from any thread once loaded (hwloc permits
// concurrent reads).
class PciTopology {
 public:
  // Loads the topology. hwloc's GPU and graphics discovery components (cuda,
  // nvml, opencl, rsmi, levelzero, gl) are switched off for this topology:
  // gpurun asks CUDA and NVML itself, and gl may try to reach an X server.
  // SystemError when hwloc fails.
  static StatusOr<PciTopology> Load();

  // The locality of the PCI device at `bus_id` (any spelling pci_bus_id.h
  // parses). InvalidArgument for a bad bus id; Unsupported when hwloc has no
  // such device (containers often hide the PCI tree).
  StatusOr<PciLocality> Locate(std::string_view bus_id) const;

 private:
  struct Deleter {
    void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
  };
  explicit PciTopology(hwloc_topology_t topology) : topology_(topology) {}

  std::unique_ptr<hwloc_topology, Deleter> topology_;
};

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_HWLOC_LOCALITY_H_
