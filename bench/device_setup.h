// The pure decisions behind --device cuda and --compare nccl, kept apart from
// CUDA so they are tested without a GPU: which GPU a rank takes, what to do
// with NCCL_NVLS_ENABLE, how ncclGetVersion's code reads, and the header line
// that states how the job was launched.
#ifndef GPURUN_BENCH_DEVICE_SETUP_H_
#define GPURUN_BENCH_DEVICE_SETUP_H_

#include <optional>
#include <string>

#include "runtime/base/status.h"

// This rank's CUDA device: `local_rank` (GPURUN_LOCAL_RANK's value; unset
// means 0) modulo `count`. A value that is not a non-negative integer, or no
// device at all, is an error.
gpurun::StatusOr<int> PickDevice(const std::optional<std::string>& local_rank, int count);

// NCCL_NVLS_ENABLE must be 0 (multicast is forbidden on the machines we
// measure on, ../shared/DESIGN.md §4): true when unset (the caller sets it to
// 0), false when it already is "0", an error for any other value.
gpurun::StatusOr<bool> NvlsNeedsSetting(const std::optional<std::string>& value);

// ncclGetVersion's code as "2.28.9". NCCL_VERSION encodes 2.9 and later as
// major * 10000 + minor * 100 + patch, earlier ones as major * 1000 + minor * 100 + patch.
std::string NcclVersionText(int code);

// The header's launch line, e.g. "launch: one process per GPU, eager launches
// (no CUDA graph), stream-ordered". `local_ranks`: ranks on the node, `gpus`:
// GPUs visible to each.
std::string LaunchLine(int local_ranks, int gpus, bool blocking, bool graph);

#endif  // GPURUN_BENCH_DEVICE_SETUP_H_
