// Per-thread last-error message (see last_error.h).
#include "runtime/last_error.h"

#include <string>

namespace gpurun {
namespace {
thread_local std::string t_last_error;
}  // namespace

grResult_t ToResult(const Status& status) {
  if (status.ok()) {
    t_last_error.clear();
  } else {
    t_last_error = status.message();
  }
  return status.code();
}

const char* LastErrorMessage() { return t_last_error.c_str(); }

}  // namespace gpurun

extern "C" const char* grGetLastErrorMessage(void) { return gpurun::LastErrorMessage(); }
