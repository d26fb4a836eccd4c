// NCCL as a CollLibrary of the sweep (CUDA builds only): a communicator over
// the same ranks as gpurun's world, calls on the benchmark's buffers and
// stream. With --blocking each call is followed by cudaStreamSynchronize, the
// NCCL counterpart of gpurun's GR_STREAM_HOST.
#ifndef GPURUN_BENCH_NCCL_LIBRARY_H_
#define GPURUN_BENCH_NCCL_LIBRARY_H_

#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <string>

#include "bench/coll_library.h"
#include "bench/nccl_loader.h"
#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

class NcclLibrary : public CollLibrary {
 public:
  // Collective over gpurun's world communicator: rank 0's ncclGetUniqueId
  // reaches the others by grBcast (host buffer, GR_STREAM_HOST), then
  // ncclCommInitRank on the current device.
  static gpurun::StatusOr<std::unique_ptr<NcclLibrary>> Create(std::shared_ptr<const NcclApi> api, BufferView buffers,
                                                               grStream_t stream, bool blocking, int rank, int nranks);
  ~NcclLibrary() override;
  NcclLibrary(const NcclLibrary&) = delete;
  NcclLibrary& operator=(const NcclLibrary&) = delete;

  const char* name() const override { return "nccl"; }
  const char* ApiName(const CollCase& c) const override;
  bool Has(const CollCase& c) const override;
  CallCode Call(const CollCase& c) override;
  CallCode GroupStart() override;
  CallCode GroupEnd() override;
  std::string ErrorText() const override { return last_error_; }

 private:
  // With blocking_, the stream's work done (after a call, or a group's end).
  CallCode SyncIfBlocking();
  // Whether `rc` is an error; if so, last_error_ says which.
  bool Failed(ncclResult_t rc);

  NcclLibrary(std::shared_ptr<const NcclApi> api, BufferView buffers, cudaStream_t stream, bool blocking)
      : api_(std::move(api)), buffers_(buffers), stream_(stream), blocking_(blocking) {}

  std::shared_ptr<const NcclApi> api_;
  BufferView buffers_;
  cudaStream_t stream_;
  bool blocking_;
  bool in_group_ = false;  // between GroupStart and GroupEnd: no sync after a call
  ncclComm_t comm_ = nullptr;
  std::string last_error_;
};

#endif  // GPURUN_BENCH_NCCL_LIBRARY_H_
