// The calls every device primitives class offers the ring algorithms
// (ring_algos.cuh), NCCL's send / recv / recvReduceSend / ... , each a set of
// flags for the protocol's own Run(src, dst, n, flags) (CRTP: `Derived`
// is PrimsSimple, PrimsLL or PrimsLL128; S the element storage type).
#ifndef GPURUN_COLL_DEVICE_PRIMS_CALLS_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_CALLS_CUH_

#include <cstdint>

namespace gpurun::coll::dev {

// What one primitive call does: receive from the previous rank, send to the
// next, read the source, write the destination, divide (avg's last step).
enum PrimFlags : unsigned { kPrimRecv = 1, kPrimSend = 2, kPrimSrc = 4, kPrimDst = 8, kPrimPost = 16 };

template <typename Derived, typename S>
class PrimsCalls {
 public:
  __device__ bool Send(const S* src, uint64_t n) { return self().Run(src, nullptr, n, kPrimSrc | kPrimSend); }
  __device__ bool Recv(S* dst, uint64_t n) { return self().Run(nullptr, dst, n, kPrimRecv | kPrimDst); }
  __device__ bool RecvReduceSend(const S* src, uint64_t n) {
    return self().Run(src, nullptr, n, kPrimRecv | kPrimSrc | kPrimSend);
  }
  __device__ bool RecvReduceCopySend(const S* src, S* dst, uint64_t n, bool post) {
    return self().Run(src, dst, n, kPrimRecv | kPrimSrc | kPrimDst | kPrimSend | (post ? kPrimPost : 0u));
  }
  __device__ bool RecvCopySend(S* dst, uint64_t n) {
    return self().Run(nullptr, dst, n, kPrimRecv | kPrimDst | kPrimSend);
  }
  __device__ bool RecvReduceCopy(const S* src, S* dst, uint64_t n, bool post) {
    return self().Run(src, dst, n, kPrimRecv | kPrimSrc | kPrimDst | (post ? kPrimPost : 0u));
  }
  __device__ bool CopySend(const S* src, S* dst, uint64_t n) {
    return self().Run(src, dst, n, kPrimSrc | kPrimDst | kPrimSend);
  }

 private:
  __device__ Derived& self() { return *static_cast<Derived*>(this); }
};

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_CALLS_CUH_
