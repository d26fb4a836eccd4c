// The process-wide context (see global_context.h).
#include "runtime/global_context.h"

#include <atomic>
#include <mutex>

namespace gpurun {
namespace {

std::mutex g_mutex;                // serialises init/finalize
std::unique_ptr<Context> g_owned;  // guarded by g_mutex
std::atomic<Context*> g_current{nullptr};
bool g_finalized = false;  // guarded by g_mutex

}  // namespace

Context* CurrentContext() { return g_current.load(std::memory_order_acquire); }

Status InitGlobalContext() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_owned) return InvalidUsage("grInit called twice");
  if (g_finalized) return InvalidUsage("grInit called after grFinalize; gpurun starts once per process");
  GR_ASSIGN_OR_RETURN(g_owned, Context::Create());
  g_current.store(g_owned.get(), std::memory_order_release);
  return OkStatus();
}

Status FinalizeGlobalContext() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_owned) return InvalidUsage(g_finalized ? "grFinalize called twice" : "grFinalize called before grInit");
  Status status = g_owned->Finalize();
  g_current.store(nullptr, std::memory_order_release);
  g_owned.reset();
  g_finalized = true;
  return status;
}

StatusOr<grComm*> CheckComm(grComm_t comm) {
  Context* ctx = CurrentContext();
  if (ctx == nullptr) return InvalidUsage("gpurun is not initialized (call grInit first)");
  if (comm == nullptr) return InvalidArgument("communicator is GR_COMM_NULL");
  // IsLive compares pointers only, so a freed (dangling) handle is caught here.
  if (!ctx->IsLive(comm)) {
    return InvalidArgument("communicator is not live (freed already, or not made by this gpurun instance)");
  }
  return comm;
}

}  // namespace gpurun
