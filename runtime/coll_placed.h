// Running a checked ring/tree collective where its buffers are (buffer_place.h):
// the GPU executor for device memory, the host executor for host memory.
// RunPlacedGroup runs a group's consecutive collectives of one communicator
// and stream (group.h): each consecutive run of them on device buffers of
// one GPU goes to GpuColl::RunGroup, which fuses them into as few launches
// as it may; host ones run one by one, in order.
#ifndef GPURUN_RUNTIME_COLL_PLACED_H_
#define GPURUN_RUNTIME_COLL_PLACED_H_

#include <span>

#include "coll/host/host_coll.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/comm.h"

namespace gpurun {

// The checks leave a reduce's recv null off the root, where it is unused.
Status RunPlaced(grComm& comm, const coll::CollCall& call, grStream_t stream);

// In order; the first error stops the rest.
Status RunPlacedGroup(grComm& comm, std::span<const coll::CollCall> calls, grStream_t stream);

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_PLACED_H_
