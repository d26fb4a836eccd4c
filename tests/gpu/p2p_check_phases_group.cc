// p2p_check_phases_group.cc: the "group" phase of device_p2p_check —
// grGroupStart / grGroupEnd. Every rank sends a message to every rank (itself
// too) and receives one from each, all inside one group, the sends listed in
// ascending and the receives in descending peer order, on host buffers with
// GR_STREAM_HOST and on device buffers with the rank's stream; each message
// is larger than a pair's FIFOs when the job sets small ones
// (GPURUN_P2P_NCHANNELS / GPURUN_P2P_BUFFSIZE, as gpu_p2p_test's Group case
// does), so it only completes when the sends and receives progress together.
// An allreduce in the same group runs at grGroupEnd. A grIsend inside a group
// is refused and the group then runs nothing, saying so; grGroupEnd alone is
// refused.
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/gpu/p2p_check_phases.h"
#include "tests/gpu/p2p_check_support.h"

namespace gpurun::p2p_check {
namespace {

constexpr size_t kGroupBytes = 3 * 1024 * 1024 + 5;
constexpr int kGroupTag = 77;

void GroupAllToAll(Mem mem) {
  const grStream_t stream = mem == Mem::kDevice ? reinterpret_cast<grStream_t>(g.stream) : GR_STREAM_HOST;
  const int n = g.size;
  std::vector<Message> out(n), in(n);
  std::vector<std::unique_ptr<Buffer>> sbuf(n), rbuf(n);
  std::vector<grStatus_t> status(n);
  for (int p = 0; p < n; ++p) {
    out[p] = Make(mem, mem, Msg{grUint8, kGroupBytes}, g.rank, p, kGroupTag, 40, 0);
    in[p] = Make(mem, mem, Msg{grUint8, kGroupBytes}, p, g.rank, kGroupTag, 40, 0);
    in[p].cap = kGroupBytes;
    sbuf[p] = SendBuffer(out[p]);
    rbuf[p] = std::make_unique<Buffer>(mem, kGroupBytes);
  }
  int32_t* sum = nullptr;
  const int32_t mine = g.rank + 1;
  int32_t host_sum = 0;
  if (mem == Mem::kDevice) {
    Cuda(cudaMalloc(&sum, 2 * sizeof(int32_t)), "cudaMalloc");
    Cuda(cudaMemcpy(sum, &mine, sizeof(mine), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  const std::string what = std::string("group all-to-all of ") + MemName(mem) + " buffers";
  Ok(grGroupStart(), what + ": grGroupStart");
  for (int p = 0; p < n; ++p) {
    Ok(grSend(sbuf[p]->data(), kGroupBytes, grUint8, p, kGroupTag, g.world, stream), what + ": grSend in the group");
  }
  if (mem == Mem::kDevice) {
    Ok(grAllreduce(sum, sum + 1, 1, grInt32, grSum, g.world, stream), what + ": grAllreduce in the group");
  } else {
    Ok(grAllreduce(&mine, &host_sum, 1, grInt32, grSum, g.world, stream), what + ": grAllreduce in the group");
  }
  for (int p = n - 1; p >= 0; --p) {
    Ok(grRecv(rbuf[p]->data(), kGroupBytes, grUint8, p, kGroupTag, g.world, &status[p], stream),
       what + ": grRecv in the group");
  }
  Ok(grGroupEnd(), what + ": grGroupEnd");
  if (mem == Mem::kDevice) {
    Cuda(cudaStreamSynchronize(g.stream), "cudaStreamSynchronize");
    Cuda(cudaMemcpy(&host_sum, sum + 1, sizeof(host_sum), cudaMemcpyDeviceToHost), "cudaMemcpy");
    Cuda(cudaFree(sum), "cudaFree");
  }
  Expect(host_sum == n * (n + 1) / 2, what + ": the allreduce in the group gave " + std::to_string(host_sum));
  for (int p = 0; p < n; ++p) {
    const std::string from = what + ": from rank " + std::to_string(p);
    const std::string bad = Differs(rbuf[p]->Image(), *rbuf[p], in[p].data());
    Expect(bad.empty(), from + ": " + bad);
    Expect(status[p].source == p && status[p].tag == kGroupTag && status[p].bytes == kGroupBytes &&
               status[p].error == grSuccess,
           from + ": status source " + std::to_string(status[p].source) + " tag " + std::to_string(status[p].tag) +
               " bytes " + std::to_string(status[p].bytes));
  }
}

void GroupRefusals() {
  Expect(grGroupEnd() == grInvalidUsage, "grGroupEnd without grGroupStart is grInvalidUsage");
  uint8_t byte = 0;
  grRequest_t req = GR_REQUEST_NULL;
  Ok(grGroupStart(), "grGroupStart");
  const grResult_t r = grIsend(&byte, 1, grUint8, g.rank, 1, g.world, GR_STREAM_HOST, &req);
  Expect(r == grInvalidUsage, "grIsend inside a group is grInvalidUsage (got " + ErrorText(r) + ")");
  Expect(req == GR_REQUEST_NULL, "a refused grIsend leaves its request");
  const grResult_t end = grGroupEnd();
  const std::string message = grGetLastErrorMessage();
  Expect(end == grInvalidUsage && message.find("ran nothing") != std::string::npos,
         "the spoiled group's grGroupEnd says it ran nothing (got " + message + ")");
}

}  // namespace

void Group() {
  for (Mem mem : kMems) GroupAllToAll(mem);
  GroupRefusals();
}

}  // namespace gpurun::p2p_check
