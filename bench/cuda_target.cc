// This rank's GPU and its buffers and stream (see cuda_target.h).
#include "bench/cuda_target.h"

#include "bench/device_setup.h"
#include "runtime/base/env.h"

namespace {

class CudaTarget : public BenchTarget {
 public:
  CudaTarget(size_t max_bytes, bool check) : mirror_(check ? max_bytes : 0), max_bytes_(max_bytes) {}
  CudaTarget(const CudaTarget&) = delete;
  CudaTarget& operator=(const CudaTarget&) = delete;

  ~CudaTarget() override {
    DropGraph();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    cudaFree(recv_);
    cudaFree(send_);
  }

  gpurun::Status Allocate() {
    const size_t bytes = max_bytes_ > 0 ? max_bytes_ : 1;
    GR_RETURN_IF_ERROR(CudaCheck(cudaMalloc(&send_, bytes), "cudaMalloc of the send buffer"));
    GR_RETURN_IF_ERROR(CudaCheck(cudaMalloc(&recv_, bytes), "cudaMalloc of the receive buffer"));
    GR_RETURN_IF_ERROR(CudaCheck(cudaMemset(send_, 0, bytes), "cudaMemset of the send buffer"));
    GR_RETURN_IF_ERROR(CudaCheck(cudaMemset(recv_, 0, bytes), "cudaMemset of the receive buffer"));
    GR_RETURN_IF_ERROR(CudaCheck(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
    return CudaCheck(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the allocations");
  }

  BufferView buffers() const override { return {static_cast<char*>(send_), static_cast<char*>(recv_)}; }
  grStream_t stream() const override { return stream_; }
  CollBuffers& mirror() override { return mirror_; }

  gpurun::Status Sync() override { return CudaCheck(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

  // The copies go on the benchmark's stream (it does not wait for the legacy
  // default stream), then a sync.
  gpurun::Status Upload(size_t bytes) override {
    GR_RETURN_IF_ERROR(Copy(send_, mirror_.send.data(), bytes, cudaMemcpyHostToDevice));
    GR_RETURN_IF_ERROR(Copy(recv_, mirror_.recv.data(), bytes, cudaMemcpyHostToDevice));
    return Sync();
  }

  gpurun::Status Download(size_t bytes) override {
    GR_RETURN_IF_ERROR(Copy(mirror_.recv.data(), recv_, bytes, cudaMemcpyDeviceToHost));
    return Sync();
  }

  gpurun::Status BeginCapture() override {
    DropGraph();
    return CudaCheck(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  }

  gpurun::Status EndCapture() override {
    GR_RETURN_IF_ERROR(CudaCheck(cudaStreamEndCapture(stream_, &graph_), "cudaStreamEndCapture"));
    return CudaCheck(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }

  gpurun::Status Replay() override { return CudaCheck(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch"); }

  void DropGraph() override {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    exec_ = nullptr;
    graph_ = nullptr;
  }

 private:
  gpurun::Status Copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    return CudaCheck(cudaMemcpyAsync(dst, src, bytes, kind, stream_), "cudaMemcpyAsync for the data check");
  }

  CollBuffers mirror_;
  size_t max_bytes_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

gpurun::Status CudaCheck(cudaError_t err, std::string_view what) {
  if (err == cudaSuccess) return gpurun::OkStatus();
  return gpurun::SystemError(std::string(what) + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

gpurun::StatusOr<CudaDeviceInfo> SelectCudaDevice() {
  CudaDeviceInfo info;
  GR_RETURN_IF_ERROR(CudaCheck(cudaGetDeviceCount(&info.count), "cudaGetDeviceCount"));
  GR_ASSIGN_OR_RETURN(info.device, PickDevice(gpurun::GetEnv("GPURUN_LOCAL_RANK"), info.count));
  GR_RETURN_IF_ERROR(CudaCheck(cudaSetDevice(info.device), "cudaSetDevice(" + std::to_string(info.device) + ")"));
  cudaDeviceProp prop{};
  GR_RETURN_IF_ERROR(CudaCheck(cudaGetDeviceProperties(&prop, info.device), "cudaGetDeviceProperties"));
  info.name = prop.name;
  return info;
}

gpurun::StatusOr<std::unique_ptr<BenchTarget>> MakeCudaTarget(size_t max_bytes, bool check) {
  auto target = std::make_unique<CudaTarget>(max_bytes, check);
  GR_RETURN_IF_ERROR(target->Allocate());
  return std::unique_ptr<BenchTarget>(std::move(target));
}
