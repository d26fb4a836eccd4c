// dlopen / dlsym of NCCL, and its NVLS switch (see nccl_loader.h).
#include "bench/nccl_loader.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>

#include "bench/device_setup.h"
#include "runtime/base/env.h"

namespace {

std::string DlError() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlerror";
}

template <typename Fn>
gpurun::Status Bind(void* lib, const std::string& path, const char* name, Fn* slot) {
  dlerror();  // clear
  void* sym = dlsym(lib, name);
  if (sym == nullptr) return gpurun::SystemError("dlsym(" + path + ", " + name + "): " + DlError());
  *slot = reinterpret_cast<Fn>(sym);
  return gpurun::OkStatus();
}

gpurun::Status BindAll(void* lib, const std::string& path, NcclApi* api) {
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclGetVersion", &api->GetVersion));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclGetErrorString", &api->GetErrorString));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclGetUniqueId", &api->GetUniqueId));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclCommInitRank", &api->CommInitRank));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclCommDestroy", &api->CommDestroy));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclAllReduce", &api->AllReduce));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclAllGather", &api->AllGather));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclReduceScatter", &api->ReduceScatter));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclBroadcast", &api->Broadcast));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclReduce", &api->Reduce));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclSend", &api->Send));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclRecv", &api->Recv));
  GR_RETURN_IF_ERROR(Bind(lib, path, "ncclGroupStart", &api->GroupStart));
  return Bind(lib, path, "ncclGroupEnd", &api->GroupEnd);
}

}  // namespace

gpurun::StatusOr<NcclApi> LoadNccl(const std::string& path) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return gpurun::SystemError("dlopen(" + path + "): " + DlError());
  NcclApi api;
  if (gpurun::Status s = BindAll(lib, path, &api); !s.ok()) {
    dlclose(lib);  // nothing of it ran yet
    return s;
  }
  int code = 0;
  if (const ncclResult_t rc = api.GetVersion(&code); rc != ncclSuccess) {
    return gpurun::SystemError("ncclGetVersion: " + std::string(api.GetErrorString(rc)));
  }
  api.version = NcclVersionText(code);
  return api;
}

gpurun::Status DisableNvls() {
  GR_ASSIGN_OR_RETURN(const bool set, NvlsNeedsSetting(gpurun::GetEnv("NCCL_NVLS_ENABLE")));
  if (set && setenv("NCCL_NVLS_ENABLE", "0", 1) != 0) return gpurun::ErrnoError("setenv(NCCL_NVLS_ENABLE=0)", errno);
  return gpurun::OkStatus();
}
