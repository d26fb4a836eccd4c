// CPU topology with hwloc (see topology.h).
#include "runtime/launcher/topology.h"

#include <stdlib.h>

#include "runtime/base/env.h"

namespace gpurun::launcher {
namespace {

// hwloc loads its plugins (PCI, OpenGL/X11, OpenCL, CUDA, NVML, ...) on the
// first topology init of the process; none is needed for CPU topology. The
// variable is set only for that moment (ranks do not inherit it), and a
// user's own setting wins.
constexpr const char* kBlacklistVar = "HWLOC_PLUGINS_BLACKLIST";
constexpr const char* kUnneededPlugins =
    "hwloc_pci,hwloc_gl,hwloc_opencl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero,hwloc_xml_libxml";

}  // namespace

StatusOr<Topology> Topology::Load() {
  const bool set_blacklist = !GetEnv(kBlacklistVar).has_value();
  if (set_blacklist) setenv(kBlacklistVar, kUnneededPlugins, 0);
  hwloc_topology_t raw = nullptr;
  const int rc = hwloc_topology_init(&raw);
  if (set_blacklist) unsetenv(kBlacklistVar);
  if (rc != 0) return SystemError("hwloc_topology_init failed");
  Topology topology(raw);
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(raw) != 0) return SystemError("hwloc_topology_load failed");
  if (topology.num_cores() <= 0) return SystemError("hwloc found no cores");
  return topology;
}

}  // namespace gpurun::launcher
