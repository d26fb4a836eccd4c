// StartOwnConnections (first_step.h).
#include "coll/gpu/first_step.h"

#include <string>

#include "coll/host/agree.h"
#include "coll/ll_start.h"
#include "coll/wire_format.h"
#include "p2p/cuda_ipc/ipc_memory.h"

namespace gpurun::coll {

namespace {

Status Write(int device, void* base, const std::vector<OwnConnection>& connections, uint64_t ll_buffer_bytes,
             uint64_t first_step) {
  // The GPU's LL slots are contiguous: slot j is bytes [j, j + 1) x StepBytes.
  std::vector<LLLine> ll(ll_buffer_bytes / sizeof(LLLine));
  const uint64_t per_slot = StepBytes(ll_buffer_bytes) / sizeof(LLLine);
  for (uint64_t i = 0; i < ll.size(); ++i) ll[i].write(0, StartLLFlag(first_step, static_cast<int>(i / per_slot)));
  auto* bytes = static_cast<uint8_t*>(base);
  for (const OwnConnection& c : connections) {
    GR_RETURN_IF_ERROR(cuda::CopyToDevice(device, bytes + c.counters, &first_step, sizeof(first_step)));
    GR_RETURN_IF_ERROR(cuda::CopyToDevice(device, bytes + c.counters + 128, &first_step, sizeof(first_step)));
    GR_RETURN_IF_ERROR(cuda::CopyToDevice(device, bytes + c.ll_fifo, ll.data(), ll_buffer_bytes));
  }
  return OkStatus();
}

}  // namespace

Status StartOwnConnections(CommLink& link, int device, void* base, const std::vector<OwnConnection>& connections,
                           uint64_t ll_buffer_bytes, uint64_t first_step, const char* what) {
  if (first_step == 0) return OkStatus();
  return AgreeOnSuccess(link, Write(device, base, connections, ll_buffer_bytes, first_step),
                        std::string(what) + ": setting GPURUN_FIRST_STEP");
}

}  // namespace gpurun::coll
