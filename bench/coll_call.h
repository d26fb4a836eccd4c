// One call of the collective a row measures, through the public API:
// out of place with separate buffers, in place with NCCL's in-place pointers
// (bcast in place is MPI's grBcast, out of place NCCL's grBroadcast).
// sendrecv is one grSendrecv to rank + 1 and from rank - 1 (mod nranks), out
// of place only (HasInPlace, coll_layout.h).
// GpurunLibrary is gpurun as a CollLibrary of the sweep.
#ifndef GPURUN_BENCH_COLL_CALL_H_
#define GPURUN_BENCH_COLL_CALL_H_

#include <string>

#include "bench/coll_buffers.h"
#include "bench/coll_library.h"
#include "gpurun/gpurun.h"

// `stream`: GR_STREAM_HOST (MPI semantics) or a CUDA stream (stream-ordered).
grResult_t CallColl(const CollCase& c, BufferView b, grComm_t comm, grStream_t stream);

// The API function CallColl uses for this case ("grAllreduce", "grBcast", ...), for messages.
const char* CollApiName(const CollCase& c);

// gpurun's collectives on `buffers` over the world communicator, each call
// given `stream`. grUnsupported is CallCode::kUnsupported.
class GpurunLibrary : public CollLibrary {
 public:
  GpurunLibrary(BufferView buffers, grStream_t stream) : buffers_(buffers), stream_(stream) {}

  const char* name() const override { return "gpurun"; }
  const char* ApiName(const CollCase& c) const override { return CollApiName(c); }
  bool Has(const CollCase&) const override { return true; }
  CallCode Call(const CollCase& c) override;
  CallCode GroupStart() override;
  CallCode GroupEnd() override;
  std::string ErrorText() const override;

 private:
  CallCode Code(grResult_t rc);

  BufferView buffers_;
  grStream_t stream_;
  grResult_t last_error_ = grSuccess;
};

#endif  // GPURUN_BENCH_COLL_CALL_H_
