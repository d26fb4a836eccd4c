// AgreeOnSuccess: how the ranks of a collective set-up learn that every one
// of them succeeded, so that a failure anywhere fails every rank alike,
// naming the rank that failed (connector groups, the GPU connectors).
#ifndef GPURUN_COLL_HOST_AGREE_H_
#define GPURUN_COLL_HOST_AGREE_H_

#include <string_view>

#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Collective: all-gathers one success byte. Returns `mine` when it failed,
// else "<what> failed on <rank>" (grRemoteError) for the first rank that
// failed, else OkStatus.
Status AgreeOnSuccess(CommLink& link, const Status& mine, std::string_view what);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_AGREE_H_
