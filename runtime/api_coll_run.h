// The common shape of every collective C call (api_coll.cc,
// api_coll_p2p.cc): check the communicator, then the arguments, then the
// stream, then run; every error goes through the last-error mechanism with
// the C call's name in front (once: engine messages that already start with
// it keep theirs).
#ifndef GPURUN_RUNTIME_API_COLL_RUN_H_
#define GPURUN_RUNTIME_API_COLL_RUN_H_

#include <string_view>

#include "gpurun/gpurun.h"
#include "runtime/base/status.h"
#include "runtime/coll_args.h"
#include "runtime/global_context.h"
#include "runtime/last_error.h"

namespace gpurun {

inline Status Named(const Status& status, const char* what) {
  if (status.ok() || std::string_view(status.message()).starts_with(what)) return status;
  return status.WithContext(what);
}

// check(const grComm&) returns StatusOr<Call>; run(grComm&, const Call&) returns Status.
template <typename Check, typename Run>
grResult_t RunCollective(const char* what, grComm_t comm, grStream_t stream, Check&& check, Run&& run) {
  StatusOr<grComm*> live = CheckComm(comm);
  if (!live.ok()) [[unlikely]]
    return ToResult(Named(live.status(), what));
  auto call = check(static_cast<const grComm&>(**live));
  if (!call.ok()) [[unlikely]]
    return ToResult(Named(call.status(), what));
  if (stream != GR_STREAM_HOST) [[unlikely]]
    return ToResult(Named(CheckCollStream(stream), what));
  const Status status = run(**live, *call);
  if (status.ok()) [[likely]]
    return ToResult(status);
  return ToResult(Named(status, what));
}

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_API_COLL_RUN_H_
