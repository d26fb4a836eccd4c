// NVML through dlopen (see nvml_loader.h; the ABI is in nvml_abi.h).
#include "topo/nvml_loader.h"

#include <dlfcn.h>

#include "runtime/base/log.h"
#include "topo/nvml_abi.h"
#include "topo/pci_bus_id.h"

namespace gpurun::topo {

using namespace nvml_abi;  // NOLINT(google-build-using-namespace): NVML's own names read best here

struct NvmlLibrary::Api {
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlErrorString_fn error_string = nullptr;
  nvmlDeviceGetHandleByPciBusId_v2_fn handle_by_bus_id = nullptr;
  nvmlDeviceGetNvLinkState_fn link_state = nullptr;
  nvmlDeviceGetNvLinkRemotePciInfo_v2_fn remote_pci = nullptr;
  nvmlDeviceGetNvLinkRemoteDeviceType_fn remote_type = nullptr;  // optional
};

namespace {

Status Unavailable(std::string_view why) { return Unsupported("NVML unavailable: " + std::string(why)); }

// Looks `name` up in `handle`; appends it to `missing` when absent.
template <typename Fn>
void Resolve(void* handle, const char* name, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, name));
  if (fn == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

NvLinkPeerKind KindOf(nvmlIntNvLinkDeviceType_t type) {
  switch (type) {
    case NVML_NVLINK_DEVICE_TYPE_GPU: return NvLinkPeerKind::kGpu;
    case NVML_NVLINK_DEVICE_TYPE_SWITCH: return NvLinkPeerKind::kSwitch;
    default: return NvLinkPeerKind::kUnknown;  // IBM NPU, unknown
  }
}

// Closes a dlopen handle unless released.
struct DlHandle {
  void* handle;
  ~DlHandle() {
    if (handle != nullptr) dlclose(handle);
  }
};

}  // namespace

NvmlLibrary::NvmlLibrary(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

NvmlLibrary::~NvmlLibrary() {
  api_->shutdown();
  dlclose(handle_);
}

StatusOr<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Open(const std::string& library) {
  DlHandle dl{dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)};
  if (dl.handle == nullptr) {
    const char* why = dlerror();
    return Unavailable("cannot load " + library + " (" + (why != nullptr ? why : "dlopen failed") + ")");
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  Resolve(dl.handle, "nvmlInit_v2", api->init, missing);
  Resolve(dl.handle, "nvmlShutdown", api->shutdown, missing);
  Resolve(dl.handle, "nvmlErrorString", api->error_string, missing);
  Resolve(dl.handle, "nvmlDeviceGetHandleByPciBusId_v2", api->handle_by_bus_id, missing);
  Resolve(dl.handle, "nvmlDeviceGetNvLinkState", api->link_state, missing);
  Resolve(dl.handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", api->remote_pci, missing);
  if (!missing.empty()) return Unavailable(library + " lacks " + missing);
  std::string optional_missing;
  Resolve(dl.handle, "nvmlDeviceGetNvLinkRemoteDeviceType", api->remote_type, optional_missing);

  const nvmlReturn_t rc = api->init();
  if (rc != NVML_SUCCESS) return Unavailable(std::string("nvmlInit_v2: ") + api->error_string(rc));
  void* handle = dl.handle;
  dl.handle = nullptr;
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(handle, std::move(api)));
}

StatusOr<const NvmlLibrary*> NvmlLibrary::Shared() {
  // Never destroyed: NVML stays initialised until exit, so no static
  // destructor can race a late user.
  static const StatusOr<const NvmlLibrary*> shared = []() -> StatusOr<const NvmlLibrary*> {
    StatusOr<std::unique_ptr<NvmlLibrary>> opened = Open();
    if (!opened.ok()) {
      GR_LOG(Warn, Topo) << opened.status().message() << "; NVLink counts unknown";
      return opened.status();
    }
    GR_LOG(Info, Topo) << "NVML loaded from " << kSoname;
    return opened->release();
  }();
  return shared;
}

std::string NvmlLibrary::ErrorText(int nvml_return) const {
  const char* text = api_->error_string(nvml_return);
  return std::string(text != nullptr ? text : "unknown error") + " (" + std::to_string(nvml_return) + ")";
}

StatusOr<std::vector<NvLinkEnd>> NvmlLibrary::ActiveNvLinks(std::string_view bus_id) const {
  GR_ASSIGN_OR_RETURN(const std::string canonical, NormalizePciBusId(bus_id));
  nvmlDevice_t device = nullptr;
  const nvmlReturn_t rc = api_->handle_by_bus_id(canonical.c_str(), &device);
  if (rc != NVML_SUCCESS) {
    return SystemError("nvmlDeviceGetHandleByPciBusId_v2(" + canonical + "): " + ErrorText(rc));
  }
  std::vector<NvLinkEnd> links;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    // A GPU without NVLink answers NOT_SUPPORTED, a link index past the
    // GPU's last one INVALID_ARGUMENT: both mean "no link here", as in NCCL.
    nvmlEnableState_t active = 0;
    if (api_->link_state(device, link, &active) != NVML_SUCCESS || active != NVML_FEATURE_ENABLED) continue;
    nvmlPciInfo_t pci = {};
    if (api_->remote_pci(device, link, &pci) != NVML_SUCCESS) continue;
    NvLinkEnd end;
    end.link = static_cast<int>(link);
    // The integers, not the strings: only they sit at the same offsets in
    // every version of nvmlPciInfo_t. GPUs and NVSwitches are function 0.
    end.remote_bus_id = FormatPciBusId(PciAddress{pci.domain, pci.bus, pci.device, 0});
    nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
    if (api_->remote_type != nullptr && api_->remote_type(device, link, &type) == NVML_SUCCESS) {
      end.kind = KindOf(type);
    }
    links.push_back(std::move(end));
  }
  GR_LOG(Trace, Topo) << "NVML: " << canonical << " has " << links.size() << " active NVLinks";
  return links;
}

}  // namespace gpurun::topo
