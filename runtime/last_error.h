// The C boundary: turns a Status into a grResult_t and remembers its message
// as the calling thread's last error (grGetLastErrorMessage).
#ifndef GPURUN_RUNTIME_LAST_ERROR_H_
#define GPURUN_RUNTIME_LAST_ERROR_H_

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

namespace gpurun {
namespace internal {

// Whether the calling thread's last-error message may be non-empty. A plain
// flag, so that the success path of every call (the hot one) tests it inline
// without touching the string, whose thread-local access goes through an
// initialisation wrapper. Initial-exec, as group.h's depth: one %fs load.
[[gnu::tls_model("initial-exec")]] extern constinit thread_local bool t_has_error;

// ToResult past its fast path: records the message (or clears it).
grResult_t RecordResult(const Status& status);

}  // namespace internal

// Records the status for this thread (clears the message on success) and
// returns its code.
inline grResult_t ToResult(const Status& status) {
  if (status.ok() && !internal::t_has_error) [[likely]]
    return grSuccess;
  return internal::RecordResult(status);
}

// The calling thread's last error message ("" after a success).
const char* LastErrorMessage();

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_LAST_ERROR_H_
