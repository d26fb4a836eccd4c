// NVML (the NVIDIA Management Library) opened at run time with dlopen, for
// the one thing gpurun asks it: which NVLinks of a GPU are up and where each
// one leads. gpurun has no link-time dependency on libnvidia-ml and no nvml.h
// (nvml_abi.h declares the few entry points used).
//
// A missing library, a missing symbol or a failing nvmlInit_v2 is reported as
// Unsupported("NVML unavailable: ..."), never a crash: callers then treat
// NVLink counts as unknown. Shared() logs that fact once per process.
#ifndef GPURUN_TOPO_NVML_LOADER_H_
#define GPURUN_TOPO_NVML_LOADER_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::topo {

// What sits at the far end of an NVLink.
enum class NvLinkPeerKind { kGpu, kSwitch, kUnknown };

// One active NVLink of a GPU.
struct NvLinkEnd {
  int link = 0;                                    // link index on this GPU
  NvLinkPeerKind kind = NvLinkPeerKind::kUnknown;  // kUnknown also for IBM NPUs
  std::string remote_bus_id;                       // canonical bus id of the far end ("0000:19:00.0")
};

// An opened and initialised NVML. Every method is thread-safe (NVML is).
class NvmlLibrary {
 public:
  // The soname of the driver's NVML, as NCCL and nvidia-smi load it.
  static constexpr const char* kSoname = "libnvidia-ml.so.1";

  // dlopens `library` (a soname or a path), resolves the entry points and
  // calls nvmlInit_v2. Unsupported("NVML unavailable: <why>") on any failure;
  // logs nothing (the caller decides). The object calls nvmlShutdown and
  // dlclose when destroyed.
  static StatusOr<std::unique_ptr<NvmlLibrary>> Open(const std::string& library = kSoname);

  // The process's NVML: opened by the first call (thread-safe), kept open
  // until exit. The first failure is logged once as a warning ("NVLink counts
  // unknown") and the same status is returned by every later call.
  static StatusOr<const NvmlLibrary*> Shared();

  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The active NVLinks of the GPU at `bus_id` (any spelling pci_bus_id.h
  // parses), in link order; empty for a GPU without NVLink. Links whose
  // state or far end NVML cannot report are left out. InvalidArgument for a
  // bad bus id, SystemError when NVML knows no GPU there.
  StatusOr<std::vector<NvLinkEnd>> ActiveNvLinks(std::string_view bus_id) const;

 private:
  struct Api;  // the resolved entry points (nvml_loader.cc)

  NvmlLibrary(void* handle, std::unique_ptr<Api> api);
  std::string ErrorText(int nvml_return) const;

  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_NVML_LOADER_H_
