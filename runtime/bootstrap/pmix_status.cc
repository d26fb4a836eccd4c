// PmixToStatus (see pmix_status.h).
#include "runtime/bootstrap/pmix_status.h"

#include <string>

namespace gpurun {
namespace {

grResult_t CodeFor(pmix_status_t rc) {
  switch (rc) {
    case PMIX_ERR_TIMEOUT: return grTimeout;
    case PMIX_ERR_UNREACH:
    case PMIX_ERR_LOST_CONNECTION:
    case PMIX_ERR_COMM_FAILURE:
    case PMIX_ERR_NOT_FOUND:
    case PMIX_ERR_PROC_REQUESTED_ABORT:
    case PMIX_ERR_PROC_TERM_WO_SYNC:
    case PMIX_ERR_PROC_KILLED_BY_CMD:
    case PMIX_ERR_PROC_ABORTED_BY_SIG:
    case PMIX_ERR_EXIT_NONZERO_TERM:
    case PMIX_ERR_JOB_ABORTED:
    case PMIX_ERR_JOB_CANCELED: return grRemoteError;
    case PMIX_ERR_BAD_PARAM:
    case PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED: return grInvalidArgument;
    case PMIX_ERR_NOT_SUPPORTED: return grUnsupported;
    case PMIX_ERR_NOMEM:
    case PMIX_ERR_OUT_OF_RESOURCE:
    case PMIX_ERR_NO_PERMISSIONS: return grSystemError;
    case PMIX_ERR_INIT: return grInvalidUsage;
    case PMIX_ERR_TYPE_MISMATCH:
    case PMIX_ERR_UNKNOWN_DATA_TYPE:
    case PMIX_ERR_PACK_FAILURE:
    case PMIX_ERR_UNPACK_FAILURE:
    case PMIX_ERR_UNPACK_INADEQUATE_SPACE:
    case PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER: return grInternalError;
    default: return grRemoteError;
  }
}

}  // namespace

Status PmixToStatus(pmix_status_t rc, std::string_view what) {
  if (rc == PMIX_SUCCESS) return OkStatus();
  const char* text = PMIx_Error_string(rc);
  std::string message(what);
  message += ": ";
  message += text != nullptr ? text : "unknown PMIx error";
  message += " (PMIx status " + std::to_string(rc) + ")";
  return Status(CodeFor(rc), std::move(message));
}

}  // namespace gpurun
