// GPU pointer checks and copies through the CUDA driver, found with dlopen
// (RTLD_NOLOAD) so the layer never loads CUDA itself.
#include "compat/mpi/device_memory.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <mutex>

namespace gpurun::mpi {
namespace {

// The driver API entry points used here (cuda.h values, declared locally).
using CuPointerGetAttribute = int (*)(void* data, int attribute, uintptr_t ptr);
using CuMemcpy = int (*)(uintptr_t dst, uintptr_t src, size_t bytes);
using CuCtxPushCurrent = int (*)(void* ctx);
using CuCtxPopCurrent = int (*)(void** ctx);
constexpr int kAttrContext = 1;     // CU_POINTER_ATTRIBUTE_CONTEXT
constexpr int kAttrMemoryType = 2;  // CU_POINTER_ATTRIBUTE_MEMORY_TYPE
constexpr unsigned kMemoryTypeDevice = 2;

struct Driver {
  CuPointerGetAttribute get_attribute = nullptr;
  CuMemcpy memcpy = nullptr;
  CuCtxPushCurrent push = nullptr;
  CuCtxPopCurrent pop = nullptr;
};

// The driver's functions once libcuda is loaded; looked up again until it is.
const Driver* LoadedDriver() {
  static std::mutex mu;
  static Driver driver;
  static bool found = false;
  std::lock_guard<std::mutex> lock(mu);
  if (found) return &driver;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return nullptr;
  driver.get_attribute = reinterpret_cast<CuPointerGetAttribute>(dlsym(lib, "cuPointerGetAttribute"));
  driver.memcpy = reinterpret_cast<CuMemcpy>(dlsym(lib, "cuMemcpy"));
  driver.push = reinterpret_cast<CuCtxPushCurrent>(dlsym(lib, "cuCtxPushCurrent_v2"));
  driver.pop = reinterpret_cast<CuCtxPopCurrent>(dlsym(lib, "cuCtxPopCurrent_v2"));
  if (driver.get_attribute == nullptr || driver.memcpy == nullptr || driver.push == nullptr || driver.pop == nullptr) {
    return nullptr;
  }
  found = true;
  return &driver;
}

}  // namespace

bool IsDevice(const void* p) {
  if (p == nullptr) return false;
  const Driver* d = LoadedDriver();
  if (d == nullptr) return false;
  unsigned type = 0;
  if (d->get_attribute(&type, kAttrMemoryType, reinterpret_cast<uintptr_t>(p)) != 0) return false;
  return type == kMemoryTypeDevice;
}

Error CopyBytes(void* dst, const void* src, size_t n) {
  if (n == 0) return Ok();
  const void* device = IsDevice(dst) ? dst : IsDevice(src) ? src : nullptr;
  if (device == nullptr) {
    std::memmove(dst, src, n);
    return Ok();
  }
  const Driver* d = LoadedDriver();
  void* ctx = nullptr;
  if (d->get_attribute(&ctx, kAttrContext, reinterpret_cast<uintptr_t>(device)) != 0 || d->push(ctx) != 0) {
    return Fail(MPI_ERR_INTERN, "cannot enter the CUDA context of a device buffer");
  }
  const int rc = d->memcpy(reinterpret_cast<uintptr_t>(dst), reinterpret_cast<uintptr_t>(src), n);
  void* popped = nullptr;
  d->pop(&popped);
  if (rc != 0)
    return Fail(MPI_ERR_INTERN,
                "cuMemcpy of " + std::to_string(n) + " bytes failed (CUresult " + std::to_string(rc) + ")");
  return Ok();
}

}  // namespace gpurun::mpi
