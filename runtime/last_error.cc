// Per-thread last-error message (see last_error.h).
#include "runtime/last_error.h"

#include <string>

namespace gpurun {
namespace {
thread_local std::string t_last_error;
}  // namespace

namespace internal {

constinit thread_local bool t_has_error = false;

grResult_t RecordResult(const Status& status) {
  if (status.ok()) {
    if (t_has_error) {
      t_last_error.clear();
      t_has_error = false;
    }
  } else {
    t_last_error = status.message();
    t_has_error = true;
  }
  return status.code();
}

}  // namespace internal

const char* LastErrorMessage() { return t_last_error.c_str(); }

}  // namespace gpurun

extern "C" const char* grGetLastErrorMessage(void) { return gpurun::LastErrorMessage(); }
