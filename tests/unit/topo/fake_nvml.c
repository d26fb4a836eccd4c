/* A stand-in libnvidia-ml for the NVML loader tests: the entry points
 * nvml_loader.cc resolves, over a made-up node, with nvml.h's layouts written
 * out independently of topo/nvml_abi.h (so the test cross-checks them).
 *   0000:18:00.0 and 0000:2a:00.0  18 NVLinks to each other (links 0..17)
 *   0000:3b:00.0                   no NVLink (NOT_SUPPORTED)
 *   0000:5d:00.0                   links 0..3 to an NVSwitch at 0000:c0:00.0,
 *                                  link 4 down, links 5.. absent
 * FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail (DRIVER_NOT_LOADED). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st* nvmlDevice_t;

typedef struct {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

enum { kSuccess = 0, kInvalidArgument = 2, kNotSupported = 3, kNotFound = 6, kDriverNotLoaded = 9 };
enum { kTypeGpu = 0, kTypeSwitch = 2 };

static const unsigned kBuses[] = {0x18, 0x2a, 0x3b, 0x5d};
enum { kNumGpus = 4, kMaxLinks = 18 };

static int Index(nvmlDevice_t device) { return (int)(intptr_t)device - 1; }

nvmlReturn_t nvmlInit_v2(void) {
  const char* fail = getenv("FAKE_NVML_INIT_FAIL");
  return (fail != NULL && strcmp(fail, "1") == 0) ? kDriverNotLoaded : kSuccess;
}

nvmlReturn_t nvmlShutdown(void) { return kSuccess; }

const char* nvmlErrorString(nvmlReturn_t result) {
  return result == kDriverNotLoaded ? "Driver Not Loaded" : "Fake Error";
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* pciBusId, nvmlDevice_t* device) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (pciBusId == NULL || sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return kInvalidArgument;
  for (int i = 0; i < kNumGpus; ++i) {
    if (domain == 0 && bus == kBuses[i] && dev == 0 && fn == 0) {
      *device = (nvmlDevice_t)(intptr_t)(i + 1);
      return kSuccess;
    }
  }
  return kNotFound;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, int* isActive) {
  const int i = Index(device);
  if (link >= kMaxLinks) return kInvalidArgument;
  if (i == 2) return kNotSupported;
  if (i == 3 && link > 4) return kInvalidArgument;
  *isActive = (i == 3 && link == 4) ? 0 : 1;
  return kSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t* pci) {
  const int i = Index(device);
  if (link >= kMaxLinks || i == 2) return kInvalidArgument;
  const unsigned bus = i == 0 ? kBuses[1] : i == 1 ? kBuses[0] : 0xc0;
  memset(pci, 0, sizeof(*pci));
  pci->domain = 0;
  pci->bus = bus;
  pci->device = 0;
  pci->pciDeviceId = i == 3 ? 0x22a310deu : 0x233510deu;
  snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", 0u, bus, 0u);
  snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", 0u, bus, 0u);
  return kSuccess;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, int* type) {
  if (link >= kMaxLinks) return kInvalidArgument;
  *type = Index(device) == 3 ? kTypeSwitch : kTypeGpu;
  return kSuccess;
}
