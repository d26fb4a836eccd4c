// GpuColl::Launch: the GPU override check, the choice between one-shot and
// ring for allreduce, the plan (ring, Simple) and one kernel launch with a
// block per channel, or the one-shot launch (gpu_coll.h).
#include <cuda_runtime.h>

#include <array>
#include <string>

#include "coll/device/kernel_table.h"
#include "coll/gpu/gpu_coll.h"
#include "coll/int_math.h"
#include "coll/planner/planner.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// Below this many bytes of a call's traffic per channel, fewer channels:
// each block's fixed cost (launch share, two barriers and a fence per slice)
// outweighs its bandwidth. A first estimate (NCCL splits its Simple chunks
// down to 64 KiB per channel before it reduces channels); to be measured.
constexpr uint64_t kMinBytesPerChannel = 64 * 1024;

// Each channel's part is cut into chunks small enough for about this many
// loops (a ring step can only start once the previous rank's slice of the
// same chunk arrived, so one loop per channel pipelines badly), but not below
// kMinChunkBytes, where a slice's fixed cost (two barriers, a fence) shows.
constexpr uint64_t kTargetLoops = 4;
constexpr uint64_t kMinChunkBytes = 128 * 1024;

// A type this build compiled no device kernels for.
Status NoKernels(DataType type) {
  return Unsupported(std::string("this build has no device kernels for ") + DataTypeName(type) +
                     " (GPURUN_DEVICE_TYPES=" + dev::BuiltDeviceTypes() + ")");
}

}  // namespace

Status GpuColl::CheckOverride(Func func) const {
  if (override_.Allowed(func, Algo::kRing, Protocol::kSimple)) [[likely]]
    return OkStatus();
  if (func == Func::kAllReduce && override_.Allowed(func, Algo::kOneShot, Protocol::kLL)) return OkStatus();
  return InvalidUsage(std::string("GPURUN_ALGO / GPURUN_PROTO exclude ring/simple") +
                      (func == Func::kAllReduce ? " and oneshot/ll" : "") + " for " + FuncName(func) +
                      ", the GPU path's only algorithm and protocol for it so far");
}

std::string GpuColl::OneShotLimit() const {
  const int n = link_.size();
  if (n > kMaxOneShotRanks) {
    return "a one-shot allreduce takes at most " + std::to_string(kMaxOneShotRanks) + " ranks (this communicator has " +
           std::to_string(n) + ")";
  }
  for (int peer = 0; peer < n; ++peer) {
    if (!link_.SameHost(peer)) {
      return "a one-shot allreduce needs every rank on one host; " + link_.DescribePeer(peer) + " is not";
    }
  }
  return "";
}

StatusOr<Algo> GpuColl::AllReduceAlgo(const CollCall& call, Choice choice) const {
  const uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  const bool free = choice == Choice::kFree;
  if (bytes <= oneshot_max_bytes_ && (free || override_.Allowed(Func::kAllReduce, Algo::kOneShot, Protocol::kLL))) {
    return Algo::kOneShot;
  }
  if (free || override_.Allowed(Func::kAllReduce, Algo::kRing, Protocol::kSimple)) return Algo::kRing;
  const std::string unfit = !oneshot_limit_.empty()
                                ? oneshot_limit_
                                : "this one moves " + std::to_string(bytes) +
                                      " B, above GPURUN_GPU_ONESHOT_BYTES=" + std::to_string(opt_.oneshot_bytes);
  return InvalidUsage(
      "GPURUN_ALGO / GPURUN_PROTO leave oneshot/ll as the only choice for allreduce on GPU buffers, and " + unfit);
}

int GpuColl::ChannelsFor(const CollCall& call) const {
  uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  if (call.func == Func::kAllGather || call.func == Func::kReduceScatter) bytes *= static_cast<uint64_t>(link_.size());
  const uint64_t want = Max<uint64_t>(1, DivUp(bytes, kMinBytesPerChannel));
  return static_cast<int>(Min(want, static_cast<uint64_t>(ring_->nchannels())));
}

Status GpuColl::Launch(const CollCall& call, void* stream, Choice choice) {
  if (call.func == Func::kAllReduce) {
    GR_ASSIGN_OR_RETURN(const Algo algo, AllReduceAlgo(call, choice));
    if (algo == Algo::kOneShot) return LaunchOneShot(call, stream);
  }
  return LaunchRing(call, stream);
}

Status GpuColl::LaunchOneShot(const CollCall& call, void* stream) {
  const void* kernel = dev::OneShotKernel(call.type, call.op);
  if (kernel == nullptr) return NoKernels(call.type);
  if (oneshot_ == nullptr) {
    GR_ASSIGN_OR_RETURN(oneshot_, OneShotPeers::Create(link_, device_, opt_.oneshot_bytes));
  }
  const uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  DevOneShotLaunch l{};
  oneshot_->Fill(&l);
  l.send = call.send;
  l.recv = call.recv;
  l.error = error_;
  l.abort = abort_;
  l.timeout_ns = static_cast<uint64_t>(opt_.timeout_s * 1e9);
  l.bytes = bytes;
  l.divisor = call.op == RedOp::kAvg ? static_cast<uint32_t>(link_.size()) : 0u;
  const uint64_t lines = DivUp(bytes, kOneShotLineData);
  const auto blocks = static_cast<int>(
      Min<uint64_t>(static_cast<uint64_t>(opt_.oneshot_blocks), DivUp(lines, uint64_t{kOneShotThreads})));
  GR_CUDA_RETURN_IF_ERROR(dev::LaunchOneShotKernel(kernel, l, blocks, stream));
  return OkStatus();
}

Status GpuColl::LaunchRing(const CollCall& call, void* stream) {
  const void* kernel = dev::RingKernel(call.type, call.op);
  if (kernel == nullptr) return NoKernels(call.type);
  if (ring_ == nullptr) {
    GR_ASSIGN_OR_RETURN(ring_, RingConnectors::Create(link_, device_, opt_.max_channels, opt_.buffer_bytes));
  }
  PlanInput in;
  in.func = call.func;
  in.type = call.type;
  in.op = call.op;
  in.count = call.count;
  in.root_index = ring_->position_of(call.root);
  in.nranks = link_.size();
  in.ring_index = ring_->position();
  in.algo = Algo::kRing;
  in.proto = Protocol::kSimple;
  in.nchannels = ChannelsFor(call);
  in.buffer_bytes = ring_->buffer_bytes();
  in.max_channels = kMaxDeviceChannels;
  {
    const uint64_t part = call.count * static_cast<uint64_t>(ElemSize(call.type)) / static_cast<uint64_t>(in.nchannels);
    const uint64_t per_loop = call.func == Func::kAllReduce ? static_cast<uint64_t>(in.nranks) : 1;
    const uint64_t chunk = part / (kTargetLoops * per_loop);
    in.max_chunk_bytes = Max(chunk, kMinChunkBytes);
  }
  std::array<WorkDesc, 2 * kMaxDeviceChannels> works;
  GR_ASSIGN_OR_RETURN(const int nworks, PlanCollective(in, works));
  if (nworks == 0) return OkStatus();
  DevLaunch l{};
  l.send = call.send;
  l.recv = call.recv;
  l.channels = ring_->channels();
  l.ring_ranks = ring_->ring_ranks();
  l.error = error_;
  l.abort = abort_;
  l.timeout_ns = static_cast<uint64_t>(opt_.timeout_s * 1e9);
  l.buffer_bytes = ring_->buffer_bytes();
  l.divisor = static_cast<uint32_t>(link_.size());
  l.nworks = nworks;
  for (int i = 0; i < nworks; ++i) l.work[i] = works[static_cast<size_t>(i)];
  GR_CUDA_RETURN_IF_ERROR(dev::LaunchRingKernel(kernel, l, opt_.nthreads, stream));
  return OkStatus();
}

}  // namespace gpurun::coll
