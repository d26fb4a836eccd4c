// C API: completing requests and reading statuses (gpurun.h): grWait,
// grWaitall, grWaitany, grTest, grGetCount, grTypeSize. (Split from
// api_p2p.cc to keep each file to one concern: starting operations there,
// finishing them here.) Argument errors leave every output untouched; the
// status of a completed operation is filled also when the operation failed.
#include <algorithm>
#include <span>
#include <vector>

#include "gpurun/gpurun.h"
#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/global_context.h"
#include "runtime/last_error.h"
#include "runtime/p2p_args.h"

namespace gpurun {
namespace {

p2p::Request* FromHandle(grRequest_t handle) { return reinterpret_cast<p2p::Request*>(handle); }

StatusOr<p2p::Engine*> CurrentEngine() {
  Context* ctx = CurrentContext();
  if (ctx == nullptr) return InvalidUsage("gpurun is not initialized (call grInit first)");
  return &ctx->engine();
}

// The engine's view of a handle array: the requests behind `handles`, kept on
// the stack for the usual short lists.
class RequestList {
 public:
  RequestList(int count, const grRequest_t* handles) : count_(static_cast<size_t>(count)) {
    if (count_ > kInline) heap_.resize(count_);
    p2p::Request** out = data();
    for (size_t i = 0; i < count_; ++i) out[i] = FromHandle(handles[i]);
  }
  std::span<p2p::Request*> span() { return {data(), count_}; }

 private:
  static constexpr size_t kInline = 64;
  p2p::Request** data() { return count_ > kInline ? heap_.data() : inline_; }

  size_t count_;
  p2p::Request* inline_[kInline];
  std::vector<p2p::Request*> heap_;
};

// Checks a (count, handles) pair; the engine checks the requests themselves.
Status CheckCount(int count, const grRequest_t* handles) {
  if (count < 0) return InvalidArgument("count " + std::to_string(count) + " is negative");
  if (count > 0 && handles == nullptr) return InvalidArgument("requests is null but count is " + std::to_string(count));
  return OkStatus();
}

// Nulls the handles whose requests the engine freed (and nulled in `list`);
// after an argument error that is none.
void CopyBackNulls(RequestList& list, grRequest_t* handles) {
  std::span<p2p::Request*> requests = list.span();
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i] == nullptr) handles[i] = GR_REQUEST_NULL;
  }
}

}  // namespace
}  // namespace gpurun

using gpurun::ToResult;
namespace p2p = gpurun::p2p;

extern "C" grResult_t grWait(grRequest_t* request, grStatus_t* status) {
  if (request == nullptr) return ToResult(gpurun::InvalidArgument("grWait: request is null"));
  if (*request == GR_REQUEST_NULL) {
    if (status != GR_STATUS_IGNORE) *status = p2p::EmptyStatus();
    return ToResult(gpurun::OkStatus());
  }
  auto engine = gpurun::CurrentEngine();
  if (!engine.ok()) return ToResult(engine.status().WithContext("grWait"));
  p2p::Request* r = gpurun::FromHandle(*request);
  if (!(*engine)->IsLive(r)) {
    return ToResult(gpurun::InvalidArgument(
        "grWait: *request is not a live request (already completed and freed, or never created)"));
  }
  grStatus_t filled;
  const gpurun::Status result = (*engine)->Wait(r, &filled);
  *request = GR_REQUEST_NULL;
  if (status != GR_STATUS_IGNORE) *status = filled;
  return ToResult(result);
}

extern "C" grResult_t grWaitall(int count, grRequest_t* requests, grStatus_t* statuses) {
  auto engine = gpurun::CurrentEngine();
  if (!engine.ok()) return ToResult(engine.status().WithContext("grWaitall"));
  if (gpurun::Status bad = gpurun::CheckCount(count, requests); !bad.ok()) {
    return ToResult(bad.WithContext("grWaitall"));
  }
  gpurun::RequestList list(count, requests);
  const gpurun::Status result = (*engine)->WaitAll(list.span(), statuses, "grWaitall");
  gpurun::CopyBackNulls(list, requests);
  return ToResult(result);
}

extern "C" grResult_t grWaitany(int count, grRequest_t* requests, int* index, grStatus_t* status) {
  if (index == nullptr) return ToResult(gpurun::InvalidArgument("grWaitany: index is null"));
  auto engine = gpurun::CurrentEngine();
  if (!engine.ok()) return ToResult(engine.status().WithContext("grWaitany"));
  if (gpurun::Status bad = gpurun::CheckCount(count, requests); !bad.ok()) {
    return ToResult(bad.WithContext("grWaitany"));
  }
  gpurun::RequestList list(count, requests);
  int done = -1;
  grStatus_t filled = p2p::EmptyStatus();
  const gpurun::Status result = (*engine)->WaitAny(list.span(), &done, &filled, "grWaitany");
  // The engine nulled what it freed: one request, or all of them on a timeout.
  gpurun::CopyBackNulls(list, requests);
  if (done < 0 && !result.ok()) return ToResult(result);
  *index = done;
  if (status != GR_STATUS_IGNORE) *status = filled;
  return ToResult(result);
}

extern "C" grResult_t grTest(grRequest_t* request, int* flag, grStatus_t* status) {
  if (request == nullptr) return ToResult(gpurun::InvalidArgument("grTest: request is null"));
  if (flag == nullptr) return ToResult(gpurun::InvalidArgument("grTest: flag is null"));
  if (*request == GR_REQUEST_NULL) {
    *flag = 1;
    if (status != GR_STATUS_IGNORE) *status = p2p::EmptyStatus();
    return ToResult(gpurun::OkStatus());
  }
  auto engine = gpurun::CurrentEngine();
  if (!engine.ok()) return ToResult(engine.status().WithContext("grTest"));
  p2p::Request* r = gpurun::FromHandle(*request);
  if (!(*engine)->IsLive(r)) {
    return ToResult(gpurun::InvalidArgument(
        "grTest: *request is not a live request (already completed and freed, or never created)"));
  }
  bool done = false;
  grStatus_t filled;
  const gpurun::Status result = (*engine)->Test(r, &done, &filled);
  if (!done) {
    if (!result.ok()) return ToResult(result.WithContext("grTest"));
    *flag = 0;
    return ToResult(gpurun::OkStatus());
  }
  *flag = 1;
  *request = GR_REQUEST_NULL;
  if (status != GR_STATUS_IGNORE) *status = filled;
  return ToResult(result);
}

extern "C" grResult_t grGetCount(const grStatus_t* status, grDataType_t type, size_t* count) {
  if (status == nullptr) return ToResult(gpurun::InvalidArgument("grGetCount: status is null"));
  if (count == nullptr) return ToResult(gpurun::InvalidArgument("grGetCount: count is null"));
  auto size = gpurun::DataTypeSize(type);
  if (!size.ok()) return ToResult(size.status().WithContext("grGetCount"));
  *count = status->bytes / *size;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grTypeSize(grDataType_t type, size_t* size) {
  if (size == nullptr) return ToResult(gpurun::InvalidArgument("grTypeSize: size is null"));
  auto bytes = gpurun::DataTypeSize(type);
  if (!bytes.ok()) return ToResult(bytes.status().WithContext("grTypeSize"));
  *size = *bytes;
  return ToResult(gpurun::OkStatus());
}
