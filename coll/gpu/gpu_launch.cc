// GpuColl::Launch: the GPU override check, the tuner's choice (gpu_tuner.h),
// the plan (ring or tree; LL, LL128 or Simple) added to the pending launch
// (launch_batch.h; Flush launches it, one block per lane), or the one-shot /
// two-shot call: a small one-shot call added to the pending one-shot batch
// (direct_batch.h), any other launched at once (gpu_coll.h).
#include <cuda_runtime.h>

#include <array>
#include <string>

#include "coll/device/kernel_table.h"
#include "coll/gpu/gpu_coll.h"
#include "coll/gpu/launch_batch.h"
#include "coll/gpu/tree_layout.h"
#include "coll/int_math.h"
#include "coll/planner/planner.h"
#include "p2p/cuda_ipc/cuda_status.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

bool IsDirect(Algo algo) { return algo == Algo::kOneShot || algo == Algo::kTwoShot; }

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
  for (Protocol p : {Protocol::kSimple, Protocol::kLL, Protocol::kLL128}) {
    if (override_.Allowed(func, Algo::kRing, p)) [[likely]]
      return OkStatus();
    if (func == Func::kAllReduce && override_.Allowed(func, Algo::kTree, p)) return OkStatus();
  }
  if (func == Func::kAllReduce && (override_.Allowed(func, Algo::kOneShot, Protocol::kLL) ||
                                   override_.Allowed(func, Algo::kTwoShot, Protocol::kLL))) {
    return OkStatus();
  }
  return InvalidUsage(
      std::string("GPURUN_ALGO / GPURUN_PROTO exclude ring/simple, ring/ll, ring/ll128") +
      (func == Func::kAllReduce ? ", tree/simple, tree/ll, tree/ll128, oneshot/ll and twoshot/ll" : "") + " for " +
      FuncName(func) + ", everything the GPU path has for it so far");
}

std::string GpuColl::OneShotLimit() const {
  const int n = link_.size();
  if (n > kMaxOneShotRanks) {
    return "a one-shot or two-shot allreduce takes at most " + std::to_string(kMaxOneShotRanks) +
           " ranks (this communicator has " + std::to_string(n) + ")";
  }
  if (!net_reason_.empty()) return "a one-shot or two-shot allreduce has no NET path, and " + net_reason_;
  return "";
}

std::string GpuColl::NetReason() const {
  if (link_.size() > 1 && params::kCollNet.Get() == params::kCollNetAlways) {
    return "GPURUN_COLL_NET=always puts every ring hop on NET";
  }
  for (int peer = 0; peer < link_.size(); ++peer) {
    if (!link_.SameHost(peer)) return link_.DescribePeer(peer) + " is on another host";
  }
  return "";
}

std::string GpuColl::TreeLimit() const {
  if (net_reason_.empty()) return "";
  return "the GPU tree has no NET connections (only the ring has), and " + net_reason_;
}

StatusOr<TuneChoice> GpuColl::Choose(const CollCall& call, Choice choice) const {
  GpuTuneInput in;
  in.func = call.func;
  in.bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  if (call.func == Func::kAllGather || call.func == Func::kReduceScatter)
    in.bytes *= static_cast<uint64_t>(link_.size());
  in.nranks = link_.size();
  in.max_channels = ring_ != nullptr ? ring_->nchannels() : kMaxDeviceChannels;
  in.oneshot_max_bytes = call.func == Func::kAllReduce ? oneshot_max_bytes_ : 0;
  in.oneshot_limit = oneshot_limit_;
  // Before the ring exists, LL128 is assumed possible unless a hop is NET
  // (ring_connectors.h); the choice is made again once it does (Launch).
  in.ll128_limit = ring_ != nullptr ? std::string_view(ring_->ll128_limit()) : std::string_view(ll128_net_limit_);
  in.forced_channels = choice == Choice::kOverride ? forced_channels_ : 0;
  // The tree takes the ring's channels up to its own limit and, until it
  // exists, the ring's LL128 verdict (chosen again once it does).
  in.tree_limit = tree_limit_;
  if (call.func == Func::kAllReduce && tree_limit_.empty()) {
    in.tree_max_channels = tree_ != nullptr ? tree_->nchannels() : GpuTreeChannels(in.max_channels);
    in.tree_ll128_limit = tree_ != nullptr ? std::string_view(tree_->ll128_limit()) : in.ll128_limit;
  }
  return ChooseGpu(in, override_, choice == Choice::kOverride);
}

Status GpuColl::Launch(const CollCall& call, void* stream, Choice choice) {
  GR_ASSIGN_OR_RETURN(TuneChoice c, Choose(call, choice));
  if (IsDirect(c.algo)) return LaunchDirect(call, stream, c.algo);
  if (ring_ == nullptr) {
    // A communicator across hosts: every rank's net_reason_ says so alike.
    if (!net_reason_.empty() && net_ == nullptr) {
      GR_ASSIGN_OR_RETURN(net_, GpuNetProxy::Create(link_, abort_));
    }
    GR_ASSIGN_OR_RETURN(ring_, RingConnectors::Create(link_, device_, opt_.max_channels, opt_.buffer_bytes,
                                                      opt_.ll_buffer_bytes, opt_.ll128_buffer_bytes,
                                                      static_cast<uint64_t>(params::kFirstStep.Get()), net_.get()));
    // Choose again with what the ring has (its channels, whether LL128 is
    // safe); every rank makes the same ring, so the same choice.
    GR_ASSIGN_OR_RETURN(c, Choose(call, choice));
    if (IsDirect(c.algo)) return LaunchDirect(call, stream, c.algo);
  }
  if (c.algo == Algo::kTree && tree_ == nullptr) {
    GR_ASSIGN_OR_RETURN(
        tree_, TreeConnectors::Create(link_, device_, *ring_, static_cast<uint64_t>(params::kFirstStep.Get())));
    // Again with the tree's LL128 verdict; alike on every rank.
    GR_ASSIGN_OR_RETURN(c, Choose(call, choice));
  }
  return LaunchPlanned(call, stream, c);
}

Status GpuColl::LaunchDirect(const CollCall& call, void* stream, Algo algo) {
  const void* kernel =
      algo == Algo::kTwoShot ? dev::TwoShotKernel(call.type, call.op) : dev::OneShotKernel(call.type, call.op);
  if (kernel == nullptr) return NoKernels(call.type);
  if (oneshot_ == nullptr) {
    GR_ASSIGN_OR_RETURN(oneshot_, OneShotPeers::Create(link_, device_, opt_.oneshot_bytes));
  }
  const uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  const uint64_t lines = DivUp(bytes, kOneShotLineData);
  const auto blocks = static_cast<uint32_t>(
      Min<uint64_t>(static_cast<uint64_t>(opt_.oneshot_blocks), DivUp(lines, uint64_t{kOneShotThreads})));
  const uint32_t divisor = call.op == RedOp::kAvg ? static_cast<uint32_t>(link_.size()) : 0u;
  if (algo == Algo::kOneShot && bytes <= oneshot_->batch_max_bytes()) {
    // After the ring works before it; with the one-shot calls before it
    // when it may run beside them.
    GR_RETURN_IF_ERROR(FlushRing(stream));
    const CallBytes touched = BytesOfCall(call, link_.size(), link_.rank());
    if (!direct_.Accepts(kernel, touched)) GR_RETURN_IF_ERROR(FlushDirect(stream));
    direct_.Add(kernel, call.send, call.recv, bytes, blocks, divisor, touched);
    return OkStatus();
  }
  // After the calls before it (their works are not launched yet).
  GR_RETURN_IF_ERROR(Flush(stream));
  DevOneShotLaunch l = DirectLaunch(DirectRegion::kLarge, divisor);
  l.call[0] = DevDirectCallArgs{call.send, call.recv, bytes, 0, blocks};
  l.ncalls = 1;
  GR_CUDA_RETURN_IF_ERROR(dev::LaunchOneShotKernel(kernel, l, static_cast<int>(blocks), stream));
  return OkStatus();
}

DevOneShotLaunch GpuColl::DirectLaunch(DirectRegion region, uint32_t divisor) const {
  DevOneShotLaunch l{};
  oneshot_->Fill(&l, region);
  l.error = error_;
  l.abort = abort_;
  l.timeout_ns = static_cast<uint64_t>(opt_.timeout_s * 1e9);
  l.divisor = divisor;
  return l;
}

Status GpuColl::LaunchPlanned(const CollCall& call, void* stream, const TuneChoice& choice) {
  const bool tree = choice.algo == Algo::kTree;
  if (tree && tree_ == nullptr) return InternalError("a tree call before the GPU tree exists");
  const void* kernel = tree ? dev::TreeKernel(call.type, call.op) : dev::RingKernel(call.type, call.op);
  if (kernel == nullptr) return NoKernels(call.type);
  PlanInput in;
  in.func = call.func;
  in.type = call.type;
  in.op = call.op;
  in.count = call.count;
  in.root_index = ring_->position_of(call.root);
  in.nranks = link_.size();
  in.ring_index = ring_->position();
  in.algo = choice.algo;
  in.proto = choice.proto;
  in.nchannels = choice.nchannels;
  if (tree) {
    in.buffer_bytes = choice.proto == Protocol::kLL      ? tree_->ll_buffer_bytes()
                      : choice.proto == Protocol::kLL128 ? tree_->ll128_buffer_bytes()
                                                         : tree_->buffer_bytes();
  } else {
    in.buffer_bytes = choice.proto == Protocol::kLL      ? ring_->ll_buffer_bytes()
                      : choice.proto == Protocol::kLL128 ? ring_->ll128_buffer_bytes()
                                                         : ring_->buffer_bytes();
  }
  in.max_channels = kMaxDeviceChannels;
  // LL and LL128 move a chunk in one step and forward it line by line: no
  // smaller chunks needed for pipelining.
  if (choice.proto == Protocol::kSimple) {
    const uint64_t part = call.count * static_cast<uint64_t>(ElemSize(call.type)) / static_cast<uint64_t>(in.nchannels);
    // A ring allreduce loop moves n chunks; a tree's, one per tree.
    const uint64_t per_loop = call.func == Func::kAllReduce ? (tree ? 2 : static_cast<uint64_t>(in.nranks)) : 1;
    const uint64_t chunk = part / (kTargetLoops * per_loop);
    in.max_chunk_bytes = Max(chunk, kMinChunkBytes);
  }
  std::array<WorkDesc, 2 * kMaxDeviceChannels> works;
  GR_ASSIGN_OR_RETURN(const int nworks, PlanCollective(in, works));
  if (nworks > kMaxDeviceWorks) return InternalError("a GPU plan with more works than a launch holds");
  if (nworks == 0) return OkStatus();
  const CallBytes bytes = BytesOfCall(call, link_.size(), link_.rank());
  GR_RETURN_IF_ERROR(FlushDirect(stream));
  if (!batch_.Accepts(kernel, nworks, bytes)) GR_RETURN_IF_ERROR(FlushRing(stream));
  batch_.Add(kernel, tree, works.data(), nworks, DevBuffers{call.send, call.recv}, bytes);
  return OkStatus();
}

Status GpuColl::Flush(void* stream) {
  GR_RETURN_IF_ERROR(FlushRing(stream));
  return FlushDirect(stream);
}

Status GpuColl::FlushDirect(void* stream) {
  if (direct_.empty()) return OkStatus();
  DevOneShotLaunch l = DirectLaunch(DirectRegion::kBatch, direct_.divisor());
  const int blocks = direct_.Fill(&l);
  const void* kernel = direct_.kernel();
  if (direct_.calls() > 1) {
    GR_LOG(Info, Coll) << "GPU group: " << direct_.calls() << " one-shot allreduces in one launch (" << blocks
                       << " blocks)";
  }
  direct_.Clear();
  GR_CUDA_RETURN_IF_ERROR(dev::LaunchOneShotKernel(kernel, l, blocks, stream));
  return OkStatus();
}

Status GpuColl::FlushRing(void* stream) {
  if (batch_.empty()) return OkStatus();
  const bool tree = batch_.tree();
  DevLaunch l{};
  l.channels = ring_->channels();
  l.ring_ranks = ring_->ring_ranks();
  l.trees = tree_ != nullptr ? tree_->links() : nullptr;
  l.error = error_;
  l.abort = abort_;
  l.timeout_ns = static_cast<uint64_t>(opt_.timeout_s * 1e9);
  l.buffer_bytes = tree ? tree_->buffer_bytes() : ring_->buffer_bytes();
  l.ll_buffer_bytes = tree ? tree_->ll_buffer_bytes() : ring_->ll_buffer_bytes();
  l.ll128_buffer_bytes = tree ? tree_->ll128_buffer_bytes() : ring_->ll128_buffer_bytes();
  l.divisor = static_cast<uint32_t>(link_.size());
  batch_.Fill(&l);
  const void* kernel = batch_.kernel();
  if (batch_.calls() > 1) {
    GR_LOG(Info, Coll) << "GPU group: " << batch_.calls() << " collectives in one launch (" << (tree ? "tree" : "ring")
                       << " kernel, " << batch_.works() << " works on " << l.nblocks << " blocks)";
  }
  batch_.Clear();
  if (net_ != nullptr) net_->Wake();
  GR_CUDA_RETURN_IF_ERROR(dev::LaunchRingKernel(kernel, l, opt_.nthreads, stream));
  return OkStatus();
}

}  // namespace gpurun::coll
