// A library whose collectives gpurun-bench times: gpurun itself
// (coll_call.h) or, with --compare nccl, NCCL (nccl_library.h). The sweep
// runs every row through each library in turn on the same buffers, so the two
// are measured by one timing loop.
#ifndef GPURUN_BENCH_COLL_LIBRARY_H_
#define GPURUN_BENCH_COLL_LIBRARY_H_

#include <string>

#include "bench/coll_buffers.h"

// How one call went. kUnsupported: the library declined the call (gpurun's
// grUnsupported); the sweep reports it and skips the rest of that sweep.
enum class CallCode { kOk, kUnsupported, kFailed };

class CollLibrary {
 public:
  virtual ~CollLibrary() = default;

  // "gpurun", "nccl": for messages.
  virtual const char* name() const = 0;
  // The function a call of this case uses ("grAllreduce", "ncclAllReduce", ...), for messages.
  virtual const char* ApiName(const CollCase& c) const = 0;
  // Whether the library has this case at all (NCCL has no barrier); a case
  // it lacks is printed N/A. The answer is the same on every rank.
  virtual bool Has(const CollCase& c) const = 0;
  // Issues one call on the library's buffers. Stream-ordered calls return once enqueued.
  virtual CallCode Call(const CollCase& c) = 0;
  // A group around calls (-m): the calls between them go out at GroupEnd
  // (grGroupStart / grGroupEnd, ncclGroupStart / ncclGroupEnd); a blocking
  // library's group returns from GroupEnd once its calls completed.
  virtual CallCode GroupStart() = 0;
  virtual CallCode GroupEnd() = 0;
  // The last failed call's error, for messages.
  virtual std::string ErrorText() const = 0;
};

#endif  // GPURUN_BENCH_COLL_LIBRARY_H_
