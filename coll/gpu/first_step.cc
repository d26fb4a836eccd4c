// StartOwnConnections (first_step.h).
#include "coll/gpu/first_step.h"

#include <cstring>
#include <string>

#include "coll/host/agree.h"
#include "coll/ll_start.h"
#include "coll/wire_format.h"
#include "p2p/cuda_ipc/ipc_memory.h"

namespace gpurun::coll {

namespace {

// LL lines holding StartLLFlag's flags, slot by slot.
std::vector<LLLine> StartLines(uint64_t ll_buffer_bytes, uint64_t first_step) {
  std::vector<LLLine> ll(ll_buffer_bytes / sizeof(LLLine));
  const uint64_t per_slot = StepBytes(ll_buffer_bytes) / sizeof(LLLine);
  for (uint64_t i = 0; i < ll.size(); ++i) ll[i].write(0, StartLLFlag(first_step, static_cast<int>(i / per_slot)));
  return ll;
}

Status Write(int device, void* base, const std::vector<OwnConnection>& connections, uint64_t ll_buffer_bytes,
             uint64_t first_step) {
  // The GPU's LL slots are contiguous: slot j is bytes [j, j + 1) x StepBytes.
  const std::vector<LLLine> ll = StartLines(ll_buffer_bytes, first_step);
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

void StartNetSide(uint8_t* side, const GpuNetLayout& layout, uint64_t first_step, bool recv) {
  wire_host::Store(reinterpret_cast<uint64_t*>(side + GpuNetLayout::kTail), first_step, std::memory_order_relaxed);
  wire_host::Store(reinterpret_cast<uint64_t*>(side + GpuNetLayout::kHead), first_step, std::memory_order_relaxed);
  if (!recv) return;
  const std::vector<LLLine> ll = StartLines(layout.ll_buffer_bytes, first_step);
  std::memcpy(side + layout.LLFifo(), ll.data(), layout.ll_buffer_bytes);
}

}  // namespace gpurun::coll
