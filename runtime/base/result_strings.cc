// Names of the public result codes (grGetErrorString lives here so that the
// launcher, which does not link the rank library, can format a Status too).
#include "gpurun/gpurun.h"

extern "C" const char* grGetErrorString(grResult_t result) {
  switch (result) {
    case grSuccess: return "success";
    case grInvalidArgument: return "invalid argument";
    case grInvalidUsage: return "invalid usage";
    case grTruncated: return "message truncated";
    case grRemoteError: return "remote error";
    case grTimeout: return "timeout";
    case grSystemError: return "system error";
    case grInternalError: return "internal error";
    case grUnsupported: return "unsupported";
    case grNumResults: break;
  }
  return "unknown result code";
}
