// Pointer classification through the CUDA driver (pointer_kind.h). The
// driver library is loaded, not initialised: cuPointerGetAttributes answers
// CUDA_ERROR_NOT_INITIALIZED until the program itself initialises CUDA, and
// for memory CUDA does not know it succeeds with memory type 0.
#include "p2p/cuda_ipc/pointer_kind.h"

#include <cuda.h>
#include <dlfcn.h>

namespace gpurun::cuda {
namespace {

using PointerGetAttributesFn = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);

PointerGetAttributesFn LoadDriver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return nullptr;  // no driver: no device memory can exist
  return reinterpret_cast<PointerGetAttributesFn>(dlsym(lib, "cuPointerGetAttributes"));
}

PointerGetAttributesFn Driver() {
  static const PointerGetAttributesFn fn = LoadDriver();
  return fn;
}

}  // namespace

bool DriverPresent() { return Driver() != nullptr; }

PointerKind KindOf(const void* p) {
  PointerGetAttributesFn fn = Driver();
  if (fn == nullptr || p == nullptr) return {};
  unsigned memory_type = 0;
  int ordinal = -1;
  CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void* data[2] = {&memory_type, &ordinal};
  if (fn(2, attrs, data, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS) return {};
  if (memory_type != CU_MEMORYTYPE_DEVICE && memory_type != CU_MEMORYTYPE_UNIFIED) return {};
  return PointerKind{true, ordinal};
}

DeviceRange RangeOf(const void* p) {
  PointerGetAttributesFn fn = Driver();
  if (fn == nullptr || p == nullptr) return {};
  unsigned memory_type = 0;
  int ordinal = -1;
  unsigned long long managed = 0;  // the driver writes a bool into the low byte
  CUdeviceptr start = 0;
  size_t size = 0;
  unsigned long long buffer_id = 0;
  CUpointer_attribute attrs[6] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                  CU_POINTER_ATTRIBUTE_IS_MANAGED,  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                  CU_POINTER_ATTRIBUTE_RANGE_SIZE,  CU_POINTER_ATTRIBUTE_BUFFER_ID};
  void* data[6] = {&memory_type, &ordinal, &managed, &start, &size, &buffer_id};
  if (fn(6, attrs, data, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS) return {};
  if (memory_type != CU_MEMORYTYPE_DEVICE && memory_type != CU_MEMORYTYPE_UNIFIED) return {};
  return DeviceRange{true, (managed & 0xff) != 0, ordinal, reinterpret_cast<const void*>(start), size, buffer_id};
}

}  // namespace gpurun::cuda
