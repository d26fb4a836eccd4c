// Whether this rank shares its cores with other ranks, which decides how
// long a blocking wait spins (backoff.h: a rank that spins on a shared core
// takes it from the rank it waits for).
//
// The rule: the ranks of this host whose CPU affinity (PeerInfo::cpus)
// overlaps this rank's, this rank included, outnumber the CPUs this rank may
// run on. So 2 ranks bound to a core each (gpurun --bind-to core, srun
// --cpu-bind=cores) do not share; 2 unbound ranks on 2 CPUs do not; 8 unbound
// ranks on 2 CPUs do; and a whole job pinned to one CPU (taskset -c 0
// gpurun ...) does. Counting only this host's rank count against this rank's
// own mask, as before, took every bound rank for a shared one: one CPU each,
// two ranks, so every wait longer than 10 us slept (a 512 KiB single-copy
// broadcast took 41-49 us instead of 16).
//
// A peer without affinity data (empty cpus) counts as overlapping.
#ifndef GPURUN_P2P_CORE_SHARING_H_
#define GPURUN_P2P_CORE_SHARING_H_

#include <vector>

#include "runtime/bootstrap/peer_info.h"

namespace gpurun::p2p {

// `peers` is the job's table; `rank` this process's entry, whose cpus (empty:
// this process's affinity now) are the CPUs it may run on.
bool SharesCores(const std::vector<PeerInfo>& peers, int rank);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_CORE_SHARING_H_
