// GpuColl's life cycle and call entry (gpu_coll.h); planning and launching
// are in gpu_launch.cc, waiting and error reports in gpu_wait.cc.
#include "coll/gpu/gpu_coll.h"

#include <cuda_runtime.h>

#include <cstring>

#include "p2p/cuda_ipc/cuda_status.h"
#include "p2p/cuda_ipc/ipc_memory.h"
#include "runtime/base/log.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {

StatusOr<GpuCollOptions> LoadGpuCollOptions() {
  GpuCollOptions o;
  const int64_t channels = params::kGpuNChannels.Get();
  if (channels != 0) o.max_channels = static_cast<int>(channels);
  o.nthreads = static_cast<int>(params::kGpuNThreads.Get());
  if (o.nthreads % 32 != 0) {
    return InvalidArgument("GPURUN_GPU_NTHREADS=" + std::to_string(o.nthreads) + " is not a multiple of 32");
  }
  o.buffer_bytes = static_cast<uint64_t>(params::kGpuBuffSize.Get());
  if (!IsValidBufferBytes(Protocol::kSimple, o.buffer_bytes) || o.buffer_bytes % (kFifoSteps * 4096) != 0) {
    return InvalidArgument("GPURUN_GPU_BUFFSIZE=" + std::to_string(o.buffer_bytes) + " is not a multiple of " +
                           std::to_string(kFifoSteps * 4096) + " bytes");
  }
  o.oneshot_bytes = static_cast<uint64_t>(params::kGpuOneShotBytes.Get());
  o.oneshot_blocks = static_cast<int>(params::kGpuOneShotBlocks.Get());
  o.timeout_s = params::kTimeout.Get();
  return o;
}

StatusOr<std::unique_ptr<GpuColl>> GpuColl::Create(CommLink& link, int device, const GpuCollOptions& options) {
  std::unique_ptr<GpuColl> g(new GpuColl(link, device, options));
  GR_RETURN_IF_ERROR(g->Init());
  return g;
}

Status GpuColl::Init() {
  GR_ASSIGN_OR_RETURN(override_, LoadCollOverride());
  net_reason_ = NetReason();
  oneshot_limit_ = OneShotLimit();
  tree_limit_ = TreeLimit();
  if (!net_reason_.empty()) ll128_net_limit_ = "LL128 has no NET path, and " + net_reason_;
  oneshot_max_bytes_ = oneshot_limit_.empty() ? opt_.oneshot_bytes : 0;
  forced_channels_ = static_cast<int>(params::kNChannels.Get());
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  void* host = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&host, sizeof(DevError) + 64, cudaHostAllocMapped));
  std::memset(host, 0, sizeof(DevError) + 64);
  error_ = static_cast<DevError*>(host);
  abort_ = reinterpret_cast<uint32_t*>(static_cast<char*>(host) + sizeof(DevError));
  cudaEvent_t event = nullptr;
  GR_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  done_event_ = event;
  const int32_t zero = 0;
  GR_ASSIGN_OR_RETURN(void* word, cuda::UploadToDevice(device_, &zero, sizeof(zero)));
  barrier_word_ = static_cast<int32_t*>(word);
  return OkStatus();
}

Status GpuColl::Barrier(void* stream) {
  CollCall call;
  call.func = Func::kAllReduce;
  call.send = barrier_word_;
  call.recv = barrier_word_;
  call.count = 1;
  call.type = DataType::kInt32;
  call.op = RedOp::kMax;
  return RunChecked({&call, 1}, stream, Choice::kFree);
}

GpuColl::~GpuColl() {
  cudaSetDevice(device_);
  // Kernels of this communicator may still run on the program's streams;
  // peers may still write into this rank's FIFOs until their last kernel
  // ends: finish ours, then let every rank get here before the memory goes.
  if (ring_ != nullptr || oneshot_ != nullptr) {
    if (const cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
      GR_LOG(Warn, Coll) << "GPU collectives: cudaDeviceSynchronize at teardown failed: " << cudaGetErrorString(err);
    }
    // Our kernels ended, so nothing reads the abort word the proxy would
    // set; a peer past the barrier may close before this thread runs on
    // (a peer failing earlier fails the barrier, which names it). The
    // proxy still moves the steps in flight.
    if (net_ != nullptr) net_->Quiesce();
    char mine = 0;
    std::string all(static_cast<size_t>(link_.size()), '\0');
    if (broken_.empty()) {
      if (Status s = link_.AllGather(&mine, 1, all.data()); !s.ok()) {
        GR_LOG(Warn, Coll) << "GPU collectives: teardown barrier failed: " << s.message();
      }
    }
  }
  if (net_ != nullptr) net_->Quiesce();  // when no kernel ran
  tree_.reset();
  ring_.reset();
  oneshot_.reset();
  net_.reset();
  if (done_event_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(done_event_));
  if (barrier_word_ != nullptr) cudaFree(barrier_word_);
  if (error_ != nullptr) cudaFreeHost(error_);
}

Status GpuColl::CheckBroken() const {
  if (broken_.empty()) [[likely]]
    return OkStatus();
  return InvalidUsage("the communicator's GPU collectives stopped after an earlier error: " + broken_);
}

Status GpuColl::RunGroup(std::span<const CollCall> calls, void* stream) {
  for (const CollCall& call : calls) GR_RETURN_IF_ERROR(CheckOverride(call.func));
  return RunChecked(calls, stream, Choice::kOverride);
}

// After the override check, which Barrier skips: its allreduce is the
// runtime's, not one GPURUN_ALGO / GPURUN_PROTO speak of. A single call is
// a batch of one.
Status GpuColl::RunChecked(std::span<const CollCall> calls, void* stream, Choice choice) {
  GR_RETURN_IF_ERROR(CheckBroken());
  GR_RETURN_IF_ERROR(CheckDeviceError());
  GR_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_));
  Status status;
  for (const CollCall& call : calls) {
    if (link_.size() == 1 || call.count == 0) {
      // A copy on the stream: after the works before it.
      status = Flush(stream);
      if (status.ok()) status = RunSingle(call, stream);
    } else {
      status = Launch(call, stream, choice);
    }
    if (!status.ok()) break;
  }
  // What was planned before an error still goes: every rank planned the
  // same calls, and its peers' kernels wait for these works' steps.
  if (Status flushed = Flush(stream); status.ok()) status = flushed;
  GR_RETURN_IF_ERROR(status);
  if (stream != nullptr) return OkStatus();
  return WaitDone();
}

// One rank (or nothing to move): the result is the input.
Status GpuColl::RunSingle(const CollCall& call, void* stream) {
  if (call.count == 0 || call.send == call.recv) return OkStatus();
  if (call.func == Func::kReduce && call.root != link_.rank()) return OkStatus();
  const uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  GR_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(call.recv, call.send, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)));
  return OkStatus();
}

}  // namespace gpurun::coll
