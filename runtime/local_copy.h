// LocalCopy: the copy of a rank's own block in the point-to-point
// collectives (coll_p2p.h) — gather's root block, scatter's, allgatherv's
// and alltoall's block to self. Host memory is copied at once; GPU memory is
// enqueued on a stream of the communicator's (non-blocking, on the GPU of the
// buffers) so it overlaps the messages, and Wait() waits for it. One per
// communicator (RuntimeLink), used by one call at a time.
#ifndef GPURUN_RUNTIME_LOCAL_COPY_H_
#define GPURUN_RUNTIME_LOCAL_COPY_H_

#include <cstddef>

#include "runtime/base/status.h"

namespace gpurun {

class LocalCopy {
 public:
  LocalCopy() = default;
  ~LocalCopy();
  LocalCopy(const LocalCopy&) = delete;
  LocalCopy& operator=(const LocalCopy&) = delete;

  // Starts copying `bytes` from src to dst (host or device memory, any mix).
  Status Start(void* dst, const void* src, size_t bytes);
  // Waits for what Start enqueued (OK at once when nothing is pending).
  Status Wait();

 private:
  void* stream_ = nullptr;  // cudaStream_t on GPU device_
  int device_ = -1;
  bool pending_ = false;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_LOCAL_COPY_H_
