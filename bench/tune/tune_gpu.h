// gpurun-tune --gpu: the GPU tuner's choice per size (coll/tuner/gpu_tuner.h)
// for one rank per GPU on one host whose ring hops are NVLink (so LL128 is
// a candidate), and every candidate's predicted time.
#ifndef GPURUN_BENCH_TUNE_TUNE_GPU_H_
#define GPURUN_BENCH_TUNE_TUNE_GPU_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/tuner/override.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

struct GpuTuneOptions {
  int nranks = 2;
  int ring_channels = 128;              // the ring's channels (topo::GpuRingChannels of NV18)
  uint64_t oneshot_bytes = 4ull << 20;  // GPURUN_GPU_ONESHOT_BYTES
  uint64_t min_bytes = 8;
  uint64_t max_bytes = 1ull << 30;
  uint64_t factor = 2;
};

// Prints one table for `func`; a forced choice the GPU path cannot honour
// is the error ChooseGpu gives.
Status PrintGpuFunc(const GpuTuneOptions& options, const CollOverride& user, Func func);

}  // namespace gpurun::coll

#endif  // GPURUN_BENCH_TUNE_TUNE_GPU_H_
