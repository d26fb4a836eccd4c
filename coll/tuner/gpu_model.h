// The GPU path's cost model (NCCL src/graph/tuning.cc ncclTopoTuneModel,
// digest §4), for one rank per GPU on one host, every rank's GPU kernels
// running their channels in parallel:
//
//   time = base[f][a][p] + steps * hop[f][a][p] + bytes * factor / (1000 * busbw)
//   steps  ring: AlgorithmSteps (step_counts.h): 2(n-1) for allreduce, n-1
//          otherwise; tree allreduce: twice the deeper tree's depth (up,
//          then down); oneshot: 1 (each rank pushes to all peers at once);
//          twoshot: 2 (parts to their owners, reduced parts to all).
//   factor nccl-tests' busbw factor (nccl_anchor.md §2.4): allreduce
//          2(n-1)/n, allgather / reducescatter (n-1)/n, broadcast / reduce 1;
//          oneshot n-1 (every rank's whole input crosses to every peer);
//          twoshot allreduce's 2(n-1)/n.
//   busbw  min(channels * channel_gbps[f][a][p], max_gbps[f][a][p]) GB/s.
// Every constant is per (function, algorithm, protocol), as issue 6 asks
// and as the measurements demand: a ring broadcast moves a Simple chunk in
// one step where allgather pipelines four in two slices, so their latencies
// and per-channel rates differ by 2-3x.
//   channels  GpuChannels: a call's bytes (allgather / reducescatter: all
//          ranks' blocks) over min_channel_bytes[p], at least 1 and at most
//          the ring's channel count (the one-shot kernel sizes its own grid).
//
// bytes is NCCL's nBytes (tuner.h TuneInput). The tables are data
// (tuner_tables_h200.cc), each constant with how it was measured.
#ifndef GPURUN_COLL_TUNER_GPU_MODEL_H_
#define GPURUN_COLL_TUNER_GPU_MODEL_H_

#include <cstdint>

#include "coll/coll_types.h"

namespace gpurun::coll {

struct GpuTunerTables {
  // Which (function, algorithm, protocol) the GPU path implements.
  bool implemented[kNumFuncs][kNumAlgos][kNumProtocols];
  double base_us[kNumFuncs][kNumAlgos][kNumProtocols];
  double hop_us[kNumFuncs][kNumAlgos][kNumProtocols];
  double channel_gbps[kNumFuncs][kNumAlgos][kNumProtocols];
  double max_gbps[kNumFuncs][kNumAlgos][kNumProtocols];
  // Bytes of a call per channel below which fewer channels are used.
  uint64_t min_channel_bytes[kNumProtocols];
};

// 2 x H200 joined by 18 NVLinks, one rank per GPU (tuner_tables_h200.cc).
extern const GpuTunerTables kH200NvlinkTables;

// The channel count of a call (see above); `max_channels` >= 1.
int GpuChannels(const GpuTunerTables& tables, Protocol proto, uint64_t bytes, int max_channels);

// The model's time in microseconds with `nchannels` channels; negative when
// the tables do not implement (func, algo, proto).
double PredictGpu(const GpuTunerTables& tables, Func func, Algo algo, Protocol proto, int nranks, int nchannels,
                  uint64_t bytes);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_GPU_MODEL_H_
