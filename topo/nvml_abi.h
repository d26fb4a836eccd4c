// The part of NVML's C ABI that gpurun uses, declared here so that gpurun
// builds without nvml.h and runs without libnvidia-ml (nvml_loader.h opens it
// with dlopen). Names follow nvml.h so each line can be checked against
// NVIDIA's NVML API reference (docs.nvidia.com/deploy/nvml-api); values and
// layouts below are the documented ones (nvml.h of CUDA 12/13 drivers).
// Only nvml_loader.cc and its tests include this file.
#ifndef GPURUN_TOPO_NVML_ABI_H_
#define GPURUN_TOPO_NVML_ABI_H_

#include <cstddef>

namespace gpurun::topo::nvml_abi {

// nvmlReturn_t: a C enum (4 bytes).
using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;

// nvmlDevice_t: an opaque handle.
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

// nvmlEnableState_t: NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1.
using nvmlEnableState_t = int;
inline constexpr nvmlEnableState_t NVML_FEATURE_ENABLED = 1;

// nvmlIntNvLinkDeviceType_t: what is at the far end of one NVLink.
using nvmlIntNvLinkDeviceType_t = int;
inline constexpr nvmlIntNvLinkDeviceType_t NVML_NVLINK_DEVICE_TYPE_GPU = 0x00;
inline constexpr nvmlIntNvLinkDeviceType_t NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01;
inline constexpr nvmlIntNvLinkDeviceType_t NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02;
inline constexpr nvmlIntNvLinkDeviceType_t NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF;

// Links per GPU in nvml.h since Hopper (NVML_NVLINK_MAX_LINKS).
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;

inline constexpr size_t NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
inline constexpr size_t NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;

// nvmlPciInfo_t as filled by the _v2/_v3 entry points. The legacy (v1) struct
// began with a 16-byte busId and had the same integers at the same offsets,
// which is why gpurun reads the integers, not the strings.
struct nvmlPciInfo_t {
  char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];  // "%04X:%02X:%02X.0"
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;  // 16-bit device id << 16 | 16-bit vendor id
  unsigned int pciSubSystemId;
  char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "%08X:%02X:%02X.0"
};
static_assert(offsetof(nvmlPciInfo_t, domain) == 16);
static_assert(offsetof(nvmlPciInfo_t, bus) == 20);
static_assert(offsetof(nvmlPciInfo_t, device) == 24);
static_assert(offsetof(nvmlPciInfo_t, pciDeviceId) == 28);
static_assert(offsetof(nvmlPciInfo_t, pciSubSystemId) == 32);
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);
static_assert(sizeof(nvmlPciInfo_t) == 68);

// Entry points, looked up by these exact symbol names.
using nvmlInit_v2_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlErrorString_fn = const char* (*)(nvmlReturn_t result);
using nvmlDeviceGetHandleByPciBusId_v2_fn = nvmlReturn_t (*)(const char* pciBusId, nvmlDevice_t* device);
using nvmlDeviceGetNvLinkState_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int link,
                                                     nvmlEnableState_t* isActive);
using nvmlDeviceGetNvLinkRemotePciInfo_v2_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int link,
                                                                nvmlPciInfo_t* pci);
// Optional: without it every link's far end is of unknown kind.
using nvmlDeviceGetNvLinkRemoteDeviceType_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int link,
                                                                nvmlIntNvLinkDeviceType_t* pNvLinkDeviceType);

}  // namespace gpurun::topo::nvml_abi

#endif  // GPURUN_TOPO_NVML_ABI_H_
