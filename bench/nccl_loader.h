// NCCL for --compare nccl (CUDA builds only), loaded at run time with dlopen
// so the project neither links nor requires it: the entry points the
// benchmark calls, bound with dlsym, typed by the nccl.h of the CUDA toolkit.
// The library stays loaded until the process ends (NCCL keeps threads; it is
// never dlclose'd).
#ifndef GPURUN_BENCH_NCCL_LOADER_H_
#define GPURUN_BENCH_NCCL_LOADER_H_

#include <nccl.h>

#include <string>

#include "runtime/base/status.h"

struct NcclApi {
  decltype(&ncclGetVersion) GetVersion = nullptr;
  decltype(&ncclGetErrorString) GetErrorString = nullptr;
  decltype(&ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&ncclCommInitRank) CommInitRank = nullptr;
  decltype(&ncclCommDestroy) CommDestroy = nullptr;
  decltype(&ncclAllReduce) AllReduce = nullptr;
  decltype(&ncclAllGather) AllGather = nullptr;
  decltype(&ncclReduceScatter) ReduceScatter = nullptr;
  decltype(&ncclBroadcast) Broadcast = nullptr;
  decltype(&ncclReduce) Reduce = nullptr;
  decltype(&ncclSend) Send = nullptr;
  decltype(&ncclRecv) Recv = nullptr;
  decltype(&ncclGroupStart) GroupStart = nullptr;
  decltype(&ncclGroupEnd) GroupEnd = nullptr;
  std::string version;  // ncclGetVersion's, as "2.28.9"
};

// dlopen(path) and every entry point; a missing library or symbol is an
// error quoting dlerror().
gpurun::StatusOr<NcclApi> LoadNccl(const std::string& path);

// NCCL_NVLS_ENABLE=0 in this process's environment (set when unset; an error
// for any other value, see NvlsNeedsSetting). Call before NCCL initialises.
gpurun::Status DisableNvls();

#endif  // GPURUN_BENCH_NCCL_LOADER_H_
