// UcsToStatus (see ucx_status.h).
#include "p2p/ucx/ucx_status.h"

#include <string>

namespace gpurun::p2p {
namespace {

grResult_t CodeFor(ucs_status_t status) {
  if (IsPeerFailure(status)) return grRemoteError;
  switch (status) {
    case UCS_ERR_TIMED_OUT: return grTimeout;
    case UCS_ERR_INVALID_PARAM:
    case UCS_ERR_INVALID_ADDR:
    case UCS_ERR_OUT_OF_RANGE: return grInvalidArgument;
    case UCS_ERR_UNSUPPORTED:
    case UCS_ERR_NOT_IMPLEMENTED: return grUnsupported;
    case UCS_ERR_NO_RESOURCE:
    case UCS_ERR_NO_MEMORY:
    case UCS_ERR_IO_ERROR:
    case UCS_ERR_NO_DEVICE:
    case UCS_ERR_BUSY:
    case UCS_ERR_SHMEM_SEGMENT:
    case UCS_ERR_EXCEEDS_LIMIT: return grSystemError;
    default: return grInternalError;
  }
}

}  // namespace

bool IsPeerFailure(ucs_status_t status) {
  switch (status) {
    case UCS_ERR_UNREACHABLE:
    case UCS_ERR_REJECTED:
    case UCS_ERR_NOT_CONNECTED:
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_SOME_CONNECTS_FAILED: return true;
    default: return UCS_IS_LINK_ERROR(status) || UCS_IS_ENDPOINT_ERROR(status);
  }
}

Status UcsToStatus(ucs_status_t status, std::string_view what) {
  if (status == UCS_OK || status == UCS_INPROGRESS) return OkStatus();
  std::string message(what);
  message += ": ";
  message += ucs_status_string(status);
  message += " (UCS status " + std::to_string(static_cast<int>(status)) + ")";
  return Status(CodeFor(status), std::move(message));
}

}  // namespace gpurun::p2p
