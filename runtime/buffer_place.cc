// Buffer placement (buffer_place.h).
#include "runtime/buffer_place.h"

#include <string>

#include "runtime/coll_args.h"
#if GPURUN_HAVE_GPU_COLL
#include <cuda_runtime.h>

#include "p2p/cuda_ipc/cuda_status.h"
#include "p2p/cuda_ipc/pointer_kind.h"
#endif

namespace gpurun {
namespace {

#if GPURUN_HAVE_GPU_COLL
std::string Describe(const cuda::PointerKind& k) {
  return k.device ? "device memory of GPU " + std::to_string(k.ordinal) : std::string("host memory");
}
#endif

}  // namespace

bool DeviceMemoryPossible() {
#if GPURUN_HAVE_GPU_COLL
  return cuda::DriverPresent();
#else
  return false;
#endif
}

StatusOr<Placement> PlaceCollective(const void* send, const void* recv, grStream_t stream) {
#if GPURUN_HAVE_GPU_COLL
  if (DeviceMemoryPossible()) {
    const cuda::PointerKind s = cuda::KindOf(send);
    const cuda::PointerKind r = cuda::KindOf(recv);
    if (s.device || r.device) {
      if (send != nullptr && recv != nullptr && (s.device != r.device || s.ordinal != r.ordinal)) {
        return InvalidArgument("sendbuf is " + Describe(s) + " but recvbuf is " + Describe(r) +
                               ": a collective's buffers must all be host memory or all on one GPU");
      }
      return Placement{true, s.device ? s.ordinal : r.ordinal};
    }
  }
#else
  (void)send;
  (void)recv;
#endif
  GR_RETURN_IF_ERROR(CheckCollStream(stream));
  return Placement{};
}

StatusOr<int> StreamDeviceOf(std::initializer_list<const void*> buffers, std::initializer_list<const char*> names) {
#if GPURUN_HAVE_GPU_COLL
  if (DeviceMemoryPossible()) {
    int device = -1;
    const char* first = nullptr;
    auto name = names.begin();
    for (const void* b : buffers) {
      const char* what = name != names.end() ? *name++ : "a buffer";
      if (b == nullptr) continue;
      const cuda::PointerKind k = cuda::KindOf(b);
      if (!k.device) {
        return Unsupported(std::string("a stream orders device work, but ") + what +
                           " is host memory; pass GR_STREAM_HOST for host buffers");
      }
      if (device >= 0 && k.ordinal != device) {
        return InvalidArgument(std::string(first) + " is on GPU " + std::to_string(device) + " but " + what +
                               " on GPU " + std::to_string(k.ordinal) +
                               ": a stream-ordered call's buffers are on one GPU");
      }
      device = k.ordinal;
      first = what;
    }
    if (device < 0) GR_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device));
    return device;
  }
#else
  (void)buffers;
#endif
  return Unsupported(std::string("a stream orders device work, but ") +
                     (names.size() > 0 ? *names.begin() : "a buffer") +
                     " is host memory (this process has no CUDA driver); pass GR_STREAM_HOST for host buffers");
}

int DeviceOrdinalOf(const void* p) {
#if GPURUN_HAVE_GPU_COLL
  if (DeviceMemoryPossible()) {
    const cuda::PointerKind k = cuda::KindOf(p);
    if (k.device) return k.ordinal;
  }
#else
  (void)p;
#endif
  return -1;
}

}  // namespace gpurun
