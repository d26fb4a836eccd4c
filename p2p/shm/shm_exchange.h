// What each rank publishes about its shm endpoint during ShmWire::Create, and
// its byte encoding for the bootstrap all-gather.
//
// Thread safety: pure functions.
#ifndef GPURUN_P2P_SHM_SHM_EXCHANGE_H_
#define GPURUN_P2P_SHM_SHM_EXCHANGE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::p2p::shm {

struct ShmEndpoint {
  std::string error;            // non-empty: this rank failed to set up, and why
  std::string segment;          // its segment's shm_open name ("" with nothing to reach)
  uint64_t header_address = 0;  // where it maps that segment (the CMA probe reads its magic)
  std::vector<int32_t> reach;   // world ranks whose inbound rings the segment holds, in ring order
};

std::vector<std::byte> EncodeEndpoint(const ShmEndpoint& endpoint);
// grInternalError on a malformed blob.
StatusOr<ShmEndpoint> DecodeEndpoint(std::span<const std::byte> blob);

}  // namespace gpurun::p2p::shm

#endif  // GPURUN_P2P_SHM_SHM_EXCHANGE_H_
