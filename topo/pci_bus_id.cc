// PCI bus id parsing and canonical spelling (see pci_bus_id.h).
#include "topo/pci_bus_id.h"

#include <cstdio>

namespace gpurun::topo {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Reads 1..max_digits hex digits from the front of `text` into `value` and
// drops them from `text`; false when there is no digit or more than the max.
bool TakeHex(std::string_view& text, size_t max_digits, uint32_t& value) {
  size_t n = 0;
  uint32_t v = 0;
  while (n < text.size() && HexDigit(text[n]) >= 0) {
    if (n == max_digits) return false;
    v = v * 16 + static_cast<uint32_t>(HexDigit(text[n]));
    ++n;
  }
  if (n == 0) return false;
  value = v;
  text.remove_prefix(n);
  return true;
}

bool TakeChar(std::string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

}  // namespace

std::optional<PciAddress> ParsePciBusId(std::string_view text) {
  // Two colons: the domain is present; one colon: "bus:device.function".
  size_t colons = 0;
  for (char c : text) colons += (c == ':');
  if (colons != 1 && colons != 2) return std::nullopt;

  PciAddress address;
  if (colons == 2 && !(TakeHex(text, 8, address.domain) && TakeChar(text, ':'))) return std::nullopt;
  if (!TakeHex(text, 2, address.bus) || !TakeChar(text, ':')) return std::nullopt;
  if (!TakeHex(text, 2, address.device) || !TakeChar(text, '.')) return std::nullopt;
  if (!TakeHex(text, 1, address.function) || !text.empty()) return std::nullopt;
  if (address.device > 0x1f || address.function > 7) return std::nullopt;
  return address;
}

std::string FormatPciBusId(const PciAddress& address) {
  char text[32];
  (void)std::snprintf(text, sizeof(text), "%04x:%02x:%02x.%x", address.domain, address.bus, address.device,
                      address.function);
  return text;
}

StatusOr<std::string> NormalizePciBusId(std::string_view text) {
  const std::optional<PciAddress> address = ParsePciBusId(text);
  if (!address) {
    return InvalidArgument("not a PCI bus id (domain:bus:device.function in hex): '" + std::string(text) + "'");
  }
  return FormatPciBusId(*address);
}

}  // namespace gpurun::topo
