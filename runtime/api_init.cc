// C API: start, stop and abort the runtime (gpurun.h).
#include <unistd.h>

#include <cstdio>
#include <string>

#include "gpurun/gpurun.h"
#include "runtime/base/log.h"
#include "runtime/global_context.h"
#include "runtime/last_error.h"

using gpurun::ToResult;

extern "C" grResult_t grInit(int* /*argc*/, char*** /*argv*/) { return ToResult(gpurun::InitGlobalContext()); }

extern "C" grResult_t grFinalize(void) { return ToResult(gpurun::FinalizeGlobalContext()); }

extern "C" grResult_t grInitialized(int* flag) {
  if (flag == nullptr) return ToResult(gpurun::InvalidArgument("grInitialized: flag is null"));
  *flag = gpurun::CurrentContext() != nullptr ? 1 : 0;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grAbort(grComm_t comm, int code) {
  if (code < 1 || code > 255) code = 1;
  std::fflush(nullptr);  // keep what the rank printed
  gpurun::Context* ctx = gpurun::CurrentContext();
  if (ctx == nullptr) {
    GR_LOG(Warn, Init) << "grAbort(" << code << ") before grInit: exiting this process only";
    _exit(code);
  }
  const int rank = comm != nullptr && ctx->IsLive(comm) ? comm->rank : ctx->world()->rank;
  const std::string message = "rank " + std::to_string(rank) + " called grAbort with code " + std::to_string(code);
  GR_LOG(Warn, Init) << message;
  gpurun::Status status = ctx->bootstrap().Abort(code, message);
  if (!status.ok()) GR_LOG(Warn, Init) << "could not ask the launcher to abort the job: " << status.ToString();
  _exit(code);
}

extern "C" grResult_t grGetVersion(int* version) {
  if (version == nullptr) return ToResult(gpurun::InvalidArgument("grGetVersion: version is null"));
  *version = GR_VERSION_CODE;
  return ToResult(gpurun::OkStatus());
}
