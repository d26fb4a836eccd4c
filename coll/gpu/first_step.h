// GPURUN_FIRST_STEP (runtime/base/param_table.cc) for the GPU ring and tree:
// a rank's own connector memory as a run that reached `first_step` would
// leave it (coll/ll_start.h): each receiving FIFO's tail and each sending
// FIFO's head at first_step, and the LL FIFO's slots holding the flags
// StartLLFlag gives. The caller sets its step counters (DevChannel,
// DevTreeLinks) to first_step and holds every rank back until all have
// written theirs, so no peer's kernel writes into memory still being set.
#ifndef GPURUN_COLL_GPU_FIRST_STEP_H_
#define GPURUN_COLL_GPU_FIRST_STEP_H_

#include <cstdint>
#include <vector>

#include "coll/host/comm_link.h"
#include "coll/host/gpu_net_proxy.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Offsets in the rank's buffer of one connection's counters (tail at +0,
// head at +128) and of its LL FIFO.
struct OwnConnection {
  uint64_t counters;
  uint64_t ll_fifo;
};

// Collective: writes this rank's connections (nothing when first_step is
// 0), then all-gathers whether every rank did, so none goes on first; a
// rank that failed fails every rank, named.
Status StartOwnConnections(CommLink& link, int device, void* base, const std::vector<OwnConnection>& connections,
                           uint64_t ll_buffer_bytes, uint64_t first_step, const char* what);

// One side of a NET connection (host memory, gpu_net_proxy.h) as a run
// that reached `first_step` leaves it: tail and head at first_step and, on
// a receiving side, the LL slots holding StartLLFlag's flags.
void StartNetSide(uint8_t* side, const GpuNetLayout& layout, uint64_t first_step, bool recv);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_FIRST_STEP_H_
