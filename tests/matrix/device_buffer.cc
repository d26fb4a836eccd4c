// The CUDA implementation of the matrix's device buffers (device_buffer.h):
// one cudaMalloc'd mirror per side of a call, and copies on a non-blocking
// stream of the program's own (the calls' stream with --stream). Compiled in
// CUDA builds only.
#include "tests/matrix/device_buffer.h"

#include <cuda_runtime.h>

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string_view>

namespace gpurun::matrix {
namespace {

std::string CudaError(const std::string& what, cudaError_t e) {
  return what + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// The launcher's local rank (GPURUN_LOCAL_RANK); 0 without the launcher.
std::optional<int> LocalRank() {
  const char* text = std::getenv("GPURUN_LOCAL_RANK");
  if (text == nullptr) return 0;
  const std::string_view s(text);
  int value = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < 0) return std::nullopt;
  return value;
}

// A cudaMalloc'd block, replaced by a larger one when too small.
class Mirror {
 public:
  Mirror() = default;
  Mirror(const Mirror&) = delete;
  Mirror& operator=(const Mirror&) = delete;
  ~Mirror() {
    if (base_ != nullptr) cudaFree(base_);
  }

  std::string Reserve(size_t bytes) {
    if (bytes <= capacity_) return "";
    if (base_ != nullptr) {
      const cudaError_t e = cudaFree(base_);
      base_ = nullptr;
      capacity_ = 0;
      if (e != cudaSuccess) return CudaError("cudaFree", e);
    }
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) return CudaError("cudaMalloc of " + std::to_string(bytes) + " bytes", e);
    base_ = static_cast<unsigned char*>(p);
    capacity_ = bytes;
    return "";
  }

  unsigned char* base() const { return base_; }

 private:
  unsigned char* base_ = nullptr;
  size_t capacity_ = 0;
};

class CudaBuffers final : public DeviceBuffers {
 public:
  CudaBuffers(int device, int count, bool use_stream) : device_(device), count_(count), use_stream_(use_stream) {}
  ~CudaBuffers() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  std::string Init() {
    const cudaError_t e = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
    return e == cudaSuccess ? "" : CudaError("cudaStreamCreateWithFlags", e);
  }

  grStream_t stream() const override { return use_stream_ ? static_cast<grStream_t>(stream_) : GR_STREAM_HOST; }

  std::string Upload(Side side, const GuardedBuffer& host, unsigned char** data) override {
    Mirror& m = mirror(side);
    if (std::string e = m.Reserve(host.image_bytes()); !e.empty()) return e;
    cudaError_t e = cudaMemcpyAsync(m.base(), host.image(), host.image_bytes(), cudaMemcpyHostToDevice, stream_);
    if (e != cudaSuccess) return CudaError("cudaMemcpyAsync to the device", e);
    // A call on GR_STREAM_HOST knows nothing of this stream: the data must be there first.
    if (!use_stream_ && (e = cudaStreamSynchronize(stream_)) != cudaSuccess) {
      return CudaError("cudaStreamSynchronize after the copy to the device", e);
    }
    *data = m.base() + host.data_in_image();
    return "";
  }

  std::string BeginCapture() override {
    const cudaError_t e = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed);
    return e == cudaSuccess ? "" : CudaError("cudaStreamBeginCapture", e);
  }

  std::string EndCaptureAndLaunch(int launches) override {
    cudaGraph_t graph = nullptr;
    cudaError_t e = cudaStreamEndCapture(stream_, &graph);
    if (e != cudaSuccess) return CudaError("cudaStreamEndCapture", e);
    cudaGraphExec_t exec = nullptr;
    std::string error;
    if (launches > 0 && (e = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess) {
      error = CudaError("cudaGraphInstantiate", e);
    }
    for (int i = 0; error.empty() && i < launches; ++i) {
      if ((e = cudaGraphLaunch(exec, stream_)) != cudaSuccess) error = CudaError("cudaGraphLaunch", e);
    }
    // A graph must outlive its launches' completion only for destruction
    // to be deferred, which CUDA does; wait anyway so the error is this call's.
    if (error.empty() && launches > 0 && (e = cudaStreamSynchronize(stream_)) != cudaSuccess) {
      error = CudaError("cudaStreamSynchronize after the graph", e);
    }
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return error;
  }

  std::string Wait() override {
    const cudaError_t e = cudaStreamSynchronize(stream_);
    return e == cudaSuccess ? "" : CudaError("cudaStreamSynchronize", e);
  }

  std::string Download(Side side, GuardedBuffer& host) override {
    cudaError_t e =
        cudaMemcpyAsync(host.image(), mirror(side).base(), host.image_bytes(), cudaMemcpyDeviceToHost, stream_);
    if (e != cudaSuccess) return CudaError("cudaMemcpyAsync from the device", e);
    e = cudaStreamSynchronize(stream_);
    return e == cudaSuccess ? "" : CudaError("cudaStreamSynchronize after the copy from the device", e);
  }

  std::string Describe() const override {
    cudaDeviceProp prop{};
    char bus[32] = "?";
    cudaGetDeviceProperties(&prop, device_);
    cudaDeviceGetPCIBusId(bus, sizeof(bus), device_);
    return "cuda device " + std::to_string(device_) + " of " + std::to_string(count_) + " (" + prop.name + ", " + bus +
           "), " + (use_stream_ ? "calls on a stream of the program's own" : "calls on GR_STREAM_HOST");
  }

 private:
  Mirror& mirror(Side side) { return side == Side::kSend ? send_ : recv_; }

  int device_;
  int count_;
  bool use_stream_;
  cudaStream_t stream_ = nullptr;
  Mirror send_;
  Mirror recv_;
};

}  // namespace

std::unique_ptr<DeviceBuffers> MakeCudaBuffers(bool use_stream, std::string* error) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    *error = "no CUDA device: " +
             (e != cudaSuccess ? CudaError("cudaGetDeviceCount", e) : std::string("cudaGetDeviceCount found none"));
    return nullptr;
  }
  const std::optional<int> local_rank = LocalRank();
  if (!local_rank) {
    *error = "GPURUN_LOCAL_RANK is not a rank number";
    return nullptr;
  }
  const int device = *local_rank % count;
  if ((e = cudaSetDevice(device)) != cudaSuccess) {
    *error = CudaError("cudaSetDevice(" + std::to_string(device) + ")", e);
    return nullptr;
  }
  auto buffers = std::make_unique<CudaBuffers>(device, count, use_stream);
  if (std::string why = buffers->Init(); !why.empty()) {
    *error = why;
    return nullptr;
  }
  return buffers;
}

}  // namespace gpurun::matrix
