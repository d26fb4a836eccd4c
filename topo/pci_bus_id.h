// PCI bus ids ("domain:bus:device.function") as CUDA, NVML and hwloc spell
// them, parsed into numbers and written back in one canonical form:
// lowercase hex, four-digit domain, "0000:18:00.0". Pure code, no I/O.
//
// CUDA writes "0000:18:00.0", NVML "00000000:18:00.0" (an eight-digit domain,
// upper case), nvidia-smi "00000000:18:00.0"; all name the same device.
#ifndef GPURUN_TOPO_PCI_BUS_ID_H_
#define GPURUN_TOPO_PCI_BUS_ID_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "runtime/base/status.h"

namespace gpurun::topo {

// One PCI function's address. Ordered as the PCI hierarchy numbers it
// (domain, then bus, device, function), so neighbours in this order sit on
// the same or adjacent buses.
struct PciAddress {
  uint32_t domain = 0;
  uint32_t bus = 0;       // 0..0xff
  uint32_t device = 0;    // 0..0x1f
  uint32_t function = 0;  // 0..7

  friend bool operator==(const PciAddress&, const PciAddress&) = default;
  friend bool operator<(const PciAddress& a, const PciAddress& b) {
    return std::tie(a.domain, a.bus, a.device, a.function) < std::tie(b.domain, b.bus, b.device, b.function);
  }
};

// Parses "[domain:]bus:device.function" in hex, any case; the domain has 1..8
// digits (0 when absent), bus and device 1..2, function 1. Leading and
// trailing blanks are not accepted. Returns nullopt on any other text.
std::optional<PciAddress> ParsePciBusId(std::string_view text);

// The canonical spelling: "%04x:%02x:%02x.%x" ("0000:18:00.0"); a domain
// above 0xffff keeps all its digits.
std::string FormatPciBusId(const PciAddress& address);

// ParsePciBusId then FormatPciBusId; InvalidArgument naming the text when it
// does not parse.
StatusOr<std::string> NormalizePciBusId(std::string_view text);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_PCI_BUS_ID_H_
