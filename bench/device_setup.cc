// Device choice, NVLS policy, NCCL version text, launch line (see device_setup.h).
#include "bench/device_setup.h"

#include "runtime/base/parse.h"

gpurun::StatusOr<int> PickDevice(const std::optional<std::string>& local_rank, int count) {
  if (count <= 0) return gpurun::Unsupported("--device cuda: no CUDA device is visible to this process");
  if (!local_rank) return 0;
  auto value = gpurun::ParseInt(*local_rank);
  if (!value.ok() || *value < 0) {
    return gpurun::InvalidArgument("GPURUN_LOCAL_RANK='" + *local_rank + "' is not a non-negative integer");
  }
  return static_cast<int>(*value % count);
}

gpurun::StatusOr<bool> NvlsNeedsSetting(const std::optional<std::string>& value) {
  if (!value) return true;
  if (*value == "0") return false;
  return gpurun::InvalidUsage("NCCL_NVLS_ENABLE='" + *value +
                              "': --compare nccl runs NCCL with NVLS (multicast) off only; unset it or set it to 0");
}

std::string NcclVersionText(int code) {
  const bool new_scheme = code >= 10000;
  const int major = new_scheme ? code / 10000 : code / 1000;
  const int minor = new_scheme ? code % 10000 / 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

std::string LaunchLine(int local_ranks, int gpus, bool blocking, bool graph) {
  std::string s = "launch: ";
  if (local_ranks <= gpus) {
    s += "one process per GPU";
  } else {
    s += std::to_string(local_ranks) + " processes per node sharing " + std::to_string(gpus) + " GPU(s)";
  }
  s += graph ? ", the timed calls replayed from one CUDA graph per row and library (captured after an eager "
               "warm-up), "
             : ", eager launches (no CUDA graph), ";
  return s + (blocking ? "blocking (GR_STREAM_HOST; NCCL: cudaStreamSynchronize after each call)" : "stream-ordered");
}
