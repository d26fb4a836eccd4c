// Status constructors and formatting.
#include "runtime/base/status.h"

#include <cstring>

namespace gpurun {

const std::string& Status::EmptyMessage() {
  static const std::string empty;
  return empty;
}

std::string Status::ToString() const {
  if (ok()) return "success";
  std::string out = grGetErrorString(code_);
  if (message_) out += ": " + *message_;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message());
}

Status InvalidArgument(std::string message) { return Status(grInvalidArgument, std::move(message)); }
Status InvalidUsage(std::string message) { return Status(grInvalidUsage, std::move(message)); }
Status RemoteError(std::string message) { return Status(grRemoteError, std::move(message)); }
Status TimeoutError(std::string message) { return Status(grTimeout, std::move(message)); }
Status InternalError(std::string message) { return Status(grInternalError, std::move(message)); }
Status Unsupported(std::string message) { return Status(grUnsupported, std::move(message)); }
Status SystemError(std::string message) { return Status(grSystemError, std::move(message)); }

Status ErrnoError(std::string_view what, int err) {
  char buf[256];
  // GNU strerror_r returns the message pointer (maybe not buf).
  const char* text = strerror_r(err, buf, sizeof(buf));
  return SystemError(std::string(what) + ": " + text);
}

}  // namespace gpurun
