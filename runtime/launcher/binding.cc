// CPU binding with hwloc (see binding.h).
#include "runtime/launcher/binding.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>

#include <cstdlib>

namespace gpurun::launcher {
namespace {

std::string CpusetText(hwloc_const_cpuset_t cpuset) {
  char* text = nullptr;
  if (hwloc_bitmap_taskset_asprintf(&text, cpuset) < 0 || text == nullptr) return "?";
  std::string out(text);
  free(text);
  return out;
}

// The NUMA node whose CPUs include `core`, or nullptr.
hwloc_obj_t NumaOf(hwloc_topology_t topology, hwloc_obj_t core) {
  const int n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t numa = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    if (hwloc_bitmap_isincluded(core->cpuset, numa->cpuset)) return numa;
  }
  return nullptr;
}

RankBinding BindingTo(hwloc_topology_t topology, hwloc_obj_t obj, const char* what) {
  RankBinding binding;
  binding.bound = true;
  hwloc_cpuset_to_glibc_sched_affinity(topology, obj->cpuset, &binding.cpus, sizeof(binding.cpus));
  binding.description =
      std::string(what) + " " + std::to_string(obj->logical_index) + " (cpuset " + CpusetText(obj->cpuset) + ")";
  return binding;
}

}  // namespace

Status CheckOversubscription(int num_ranks, int num_cores, BindTo bind_to, Oversubscribe oversubscribe) {
  if (num_ranks <= num_cores) return OkStatus();
  const std::string counts = std::to_string(num_ranks) + " ranks on " + std::to_string(num_cores) + " cores";
  if (oversubscribe == Oversubscribe::kNo) {
    return InvalidUsage(counts + ": --no-oversubscribe forbids more ranks than cores");
  }
  if (bind_to == BindTo::kCore && oversubscribe != Oversubscribe::kYes) {
    return InvalidUsage(counts +
                        ": --bind-to core would put several ranks on one core; add --oversubscribe to allow it");
  }
  return OkStatus();
}

std::vector<int> AssignCores(int num_ranks, int num_cores) {
  std::vector<int> cores(static_cast<size_t>(num_ranks));
  for (int r = 0; r < num_ranks; ++r) cores[r] = num_cores > 0 ? r % num_cores : 0;
  return cores;
}

StatusOr<std::vector<RankBinding>> PlanBindings(const Topology& topology, int num_ranks, BindTo bind_to,
                                                Oversubscribe oversubscribe) {
  std::vector<RankBinding> bindings(static_cast<size_t>(num_ranks));
  for (RankBinding& b : bindings) b.description = "nothing";
  const int num_cores = topology.num_cores();
  GR_RETURN_IF_ERROR(CheckOversubscription(num_ranks, num_cores, bind_to, oversubscribe));
  if (bind_to == BindTo::kNone) return bindings;
  const std::vector<int> cores = AssignCores(num_ranks, num_cores);
  for (int r = 0; r < num_ranks; ++r) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology.get(), HWLOC_OBJ_CORE, static_cast<unsigned>(cores[r]));
    hwloc_obj_t numa = bind_to == BindTo::kNuma ? NumaOf(topology.get(), core) : nullptr;
    if (bind_to == BindTo::kNuma && numa == nullptr) return SystemError("hwloc found no NUMA node for a core");
    bindings[r] =
        numa != nullptr ? BindingTo(topology.get(), numa, "NUMA node") : BindingTo(topology.get(), core, "core");
  }
  return bindings;
}

bool ApplyBinding(const RankBinding& binding) {
  if (!binding.bound) return true;
  return sched_setaffinity(0, sizeof(binding.cpus), &binding.cpus) == 0;
}

}  // namespace gpurun::launcher
