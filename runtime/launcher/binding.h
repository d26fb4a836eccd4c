// CPU binding of ranks (--bind-to, --report-bindings, --[no-]oversubscribe).
// Each rank's CPU set is computed from the hwloc topology before fork and
// applied in the child, between fork and exec, with one async-signal-safe
// system call.
#ifndef GPURUN_RUNTIME_LAUNCHER_BINDING_H_
#define GPURUN_RUNTIME_LAUNCHER_BINDING_H_

#include <sched.h>

#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/launcher/options.h"
#include "runtime/launcher/topology.h"

namespace gpurun::launcher {

// Pure: InvalidUsage when `num_ranks` ranks may not run on `num_cores` cores
// under the policy (see Oversubscribe in options.h).
Status CheckOversubscription(int num_ranks, int num_cores, BindTo bind_to, Oversubscribe oversubscribe);

// Pure: the core index of each rank, rank i on core i, wrapping around when
// there are more ranks than cores.
std::vector<int> AssignCores(int num_ranks, int num_cores);

struct RankBinding {
  bool bound = false;
  cpu_set_t cpus{};         // what the child applies
  std::string description;  // "core 0 (cpuset 0x1)", "NUMA node 0 (cpuset 0xff)", "nothing"
};

// One binding per rank (all unbound for BindTo::kNone), after checking the
// oversubscription policy against the topology's cores.
StatusOr<std::vector<RankBinding>> PlanBindings(const Topology& topology, int num_ranks, BindTo bind_to,
                                                Oversubscribe oversubscribe);

// In the child after fork: binds the calling process. Async-signal-safe.
// Returns false (errno set) on failure.
bool ApplyBinding(const RankBinding& binding);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_BINDING_H_
