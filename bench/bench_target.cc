// The host target, and the factories that reach the CUDA-only parts when the
// build has them (see bench_target.h). GPURUN_HAVE_CUDA is defined for the
// gpurun-bench target by bench/CMakeLists.txt when CUDA was found.
#include "bench/bench_target.h"

#if GPURUN_HAVE_CUDA
#include "bench/cuda_target.h"
#include "bench/nccl_library.h"
#include "bench/nccl_loader.h"
#endif

namespace {

// Host buffers: the calls and the check share them; nothing to copy or wait for.
class HostTarget : public BenchTarget {
 public:
  explicit HostTarget(size_t max_bytes) : buffers_(max_bytes) {}
  BufferView buffers() const override { return buffers_.view(); }
  grStream_t stream() const override { return GR_STREAM_HOST; }
  CollBuffers& mirror() override { return buffers_; }
  gpurun::Status Sync() override { return gpurun::OkStatus(); }
  gpurun::Status Upload(size_t) override { return gpurun::OkStatus(); }
  gpurun::Status Download(size_t) override { return gpurun::OkStatus(); }
  gpurun::Status BeginCapture() override { return gpurun::Unsupported("CUDA graphs need --device cuda"); }
  gpurun::Status EndCapture() override { return gpurun::Unsupported("CUDA graphs need --device cuda"); }
  gpurun::Status Replay() override { return gpurun::Unsupported("CUDA graphs need --device cuda"); }
  void DropGraph() override {}

 private:
  CollBuffers buffers_;
};

#if !GPURUN_HAVE_CUDA
gpurun::Status NoCuda() {
  return gpurun::Unsupported(
      "--device cuda: this gpurun-bench was built without CUDA (configure with nvcc available, -DGPURUN_CUDA=ON)");
}
#endif

}  // namespace

std::unique_ptr<BenchTarget> MakeHostTarget(size_t max_bytes) { return std::make_unique<HostTarget>(max_bytes); }

gpurun::StatusOr<DeviceSetup> PrepareDevice(const BenchArgs& args) {
  DeviceSetup setup;
  if (args.device == BenchDevice::kHost) return setup;
#if GPURUN_HAVE_CUDA
  if (args.compare_nccl) {  // first: neither touches the GPU, and their errors are the user's to fix
    GR_RETURN_IF_ERROR(DisableNvls());
    GR_ASSIGN_OR_RETURN(NcclApi api, LoadNccl(args.nccl_lib));
    setup.nccl_version = api.version;
    setup.nccl = std::make_shared<const NcclApi>(std::move(api));
  }
  GR_ASSIGN_OR_RETURN(const CudaDeviceInfo device, SelectCudaDevice());
  setup.device = device.device;
  setup.device_count = device.count;
  setup.device_name = device.name;
  return setup;
#else
  return NoCuda();
#endif
}

gpurun::StatusOr<std::unique_ptr<BenchTarget>> MakeTarget(const BenchArgs& args) {
  if (args.device == BenchDevice::kHost) return MakeHostTarget(args.max_bytes);
#if GPURUN_HAVE_CUDA
  return MakeCudaTarget(args.max_bytes, args.checks > 0);
#else
  return NoCuda();
#endif
}

gpurun::StatusOr<std::unique_ptr<CollLibrary>> MakeCompareLibrary(const BenchArgs& args, const DeviceSetup& setup,
                                                                  BenchTarget& target, int rank, int nranks) {
#if GPURUN_HAVE_CUDA
  if (setup.nccl == nullptr) return gpurun::InternalError("--compare nccl: NCCL was not loaded");
  GR_ASSIGN_OR_RETURN(std::unique_ptr<NcclLibrary> nccl,
                      NcclLibrary::Create(setup.nccl, target.buffers(), target.stream(), args.blocking, rank, nranks));
  return std::unique_ptr<CollLibrary>(std::move(nccl));
#else
  (void)args, (void)setup, (void)target, (void)rank, (void)nranks;
  return NoCuda();
#endif
}
