// The C boundary: turns a Status into a grResult_t and remembers its message
// as the calling thread's last error (grGetLastErrorMessage).
#ifndef GPURUN_RUNTIME_LAST_ERROR_H_
#define GPURUN_RUNTIME_LAST_ERROR_H_

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"

namespace gpurun {

// Records the status for this thread (clears the message on success) and
// returns its code.
grResult_t ToResult(const Status& status);

// The calling thread's last error message ("" after a success).
const char* LastErrorMessage();

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_LAST_ERROR_H_
