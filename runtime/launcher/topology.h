// This node's CPU topology, read once with hwloc and shared by the binding
// plan and the PMIx server (which would otherwise discover it again, slowly).
// Only cores and NUMA nodes are read: no I/O devices and no hwloc plugins
// (the GPU plugins would load CUDA into the launcher, which never uses it).
#ifndef GPURUN_RUNTIME_LAUNCHER_TOPOLOGY_H_
#define GPURUN_RUNTIME_LAUNCHER_TOPOLOGY_H_

#include <hwloc.h>

#include <memory>

#include "runtime/base/status.h"

namespace gpurun::launcher {

class Topology {
 public:
  static StatusOr<Topology> Load();

  hwloc_topology_t get() const { return topology_.get(); }
  int num_cores() const { return hwloc_get_nbobjs_by_type(get(), HWLOC_OBJ_CORE); }

 private:
  struct Deleter {
    void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
  };
  explicit Topology(hwloc_topology_t topology) : topology_(topology) {}

  std::unique_ptr<hwloc_topology, Deleter> topology_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_TOPOLOGY_H_
