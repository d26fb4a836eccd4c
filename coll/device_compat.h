// Portability macros for the headers that both host code and CUDA device code
// include (pattern math, wire formats, work descriptors).
//
//   GR_HOST_DEVICE  marks a function callable from both sides: expands to
//                   `__host__ __device__` under nvcc and to nothing otherwise,
//                   so the same header compiles with a plain C++ compiler.
//   GR_DEVICE_CODE  1 while nvcc compiles the device side of a translation
//                   unit (__CUDA_ARCH__ defined), 0 on the host side and in
//                   plain C++. It picks the device branch (PTX) inside a
//                   GR_HOST_DEVICE function body.
//   GR_CUDA_COMPILE 1 whenever nvcc compiles (both passes), 0 in plain C++.
//                   The one guard around __device__-only functions (STYLE.md
//                   §3); both nvcc passes must see the same declarations.
#ifndef GPURUN_COLL_DEVICE_COMPAT_H_
#define GPURUN_COLL_DEVICE_COMPAT_H_

#if defined(__CUDACC__)
#define GR_HOST_DEVICE __host__ __device__
#else
#define GR_HOST_DEVICE
#endif

#if defined(__CUDACC__)
#define GR_CUDA_COMPILE 1
#else
#define GR_CUDA_COMPILE 0
#endif

#if defined(__CUDA_ARCH__)
#define GR_DEVICE_CODE 1
#else
#define GR_DEVICE_CODE 0
#endif

#endif  // GPURUN_COLL_DEVICE_COMPAT_H_
