// The GPU path's choice of (algorithm, protocol, channels) per call: the
// cheapest candidate of the GPU cost model (gpu_model.h) over the H200
// NVLink tables, among what the GPU path implements (ring with LL, LL128
// and Simple for every function, LL128 only where the ring says it is safe;
// for allreduce the double binary tree with the same three protocols, and
// one-shot and two-shot with LL when the communicator allows them and the
// call is small enough) and what GPURUN_ALGO / GPURUN_PROTO leave.
// GPURUN_NCHANNELS forces the ring's channel count (at most the ring's
// channels; the one-shot and two-shot kernels size their own grid,
// GPURUN_GPU_ONESHOT_BLOCKS). Each choice is logged at INFO under
// GPURUN_DEBUG_SUBSYS=TUNING, every candidate at TRACE.
#ifndef GPURUN_COLL_TUNER_GPU_TUNER_H_
#define GPURUN_COLL_TUNER_GPU_TUNER_H_

#include <cstdint>
#include <string_view>

#include "coll/coll_types.h"
#include "coll/tuner/override.h"
#include "coll/tuner/tuner.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

struct GpuTuneInput {
  Func func = Func::kAllReduce;
  uint64_t bytes = 0;  // NCCL's nBytes, as TuneInput::bytes
  int nranks = 2;
  int max_channels = 1;               // the ring's channels
  uint64_t oneshot_max_bytes = 0;     // largest one-shot or two-shot allreduce; 0: none
  std::string_view oneshot_limit;     // why both are out for the communicator ("" when they are not)
  std::string_view ll128_limit;       // why LL128 is out on this ring ("" when it is safe)
  int tree_max_channels = 0;          // the tree's channels (allreduce); 0: no tree
  std::string_view tree_limit;        // why the tree is out for the communicator ("" when it is not)
  std::string_view tree_ll128_limit;  // why LL128 is out on the tree ("" when it is safe)
  int forced_channels = 0;            // GPURUN_NCHANNELS; 0: the model's
};

// InvalidUsage when the override (`honour_override`) leaves no candidate, or
// GPURUN_NCHANNELS asks for more channels than the ring has; the message
// names the variables, their values and what the GPU path has.
StatusOr<TuneChoice> ChooseGpu(const GpuTuneInput& input, const CollOverride& override_masks, bool honour_override);

// Every candidate's predicted time for gpurun-tune: negative when the GPU
// path lacks it for this input (no row in the tables, LL128 unsafe, or the
// call beyond the one-shot / two-shot limits).
double PredictGpuCandidate(const GpuTuneInput& input, Algo algo, Protocol proto, int* nchannels);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_GPU_TUNER_H_
