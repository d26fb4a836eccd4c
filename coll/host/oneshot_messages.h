// The host executor's one-shot AllGather and Broadcast: every rank takes
// each peer's block (AllGather) or the root's buffer (Broadcast) as one
// point-to-point message of the CommLink, sent straight from the caller's
// buffer, instead of through connectors. On one host the point-to-point
// engine moves a message above GPURUN_SHM_EAGER_LIMIT by rendezvous: the
// receiver copies it ONCE, from the sender's memory into its own, by
// process_vm_readv (p2p/shm/shm_cma.h), where the ring copies every byte into
// a FIFO and out again. From 16 KiB a rank that is what Open MPI's shared
// memory transport does too (single copy). From 256 KiB the waiting sender
// copies part of it too (p2p/shm/shm_share.h): a broadcast's root, otherwise
// idle, writes about half of each peer's copy, while in an allgather every
// rank is busy with its own receive and helps only once that is done.
// Across hosts the messages take the
// engine's UCX wire; GPURUN_COLL_NET does not apply to them.
//
// Protocol simple (the messages are the engine's), one channel: the choice
// (host_coll.cc) refuses any other for these. Tags: kOneShotAllGatherTag and
// kOneShotBroadcastTag on the communicator's internal context. The steps
// (step k: send to rank + k, receive from rank - k; Broadcast: the root's
// k-th send) go through a StepWindow (step_window.h), as the runtime's
// allgatherv does: bounded in flight, the first error returned after every
// posted request completed, a message of another size than this rank's
// count grInvalidUsage naming the sender. Waits are the CommLink's: bounded
// by GPURUN_TIMEOUT, a dead or aborted peer ends them naming it.
#ifndef GPURUN_COLL_HOST_ONESHOT_MESSAGES_H_
#define GPURUN_COLL_HOST_ONESHOT_MESSAGES_H_

#include "coll/coll_types.h"
#include "coll/host/comm_link.h"
#include "coll/host/host_coll.h"
#include "coll/planner/planner.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

inline constexpr int kOneShotAllGatherTag = kCollExecutorTagBase;
inline constexpr int kOneShotBroadcastTag = kCollExecutorTagBase + 1;

// The calls HostRunsAsMessages (coll/planner/planner.h) names. `call.func` must be AllGather or Broadcast, count > 0,
// on 2 or more ranks.
Status OneShotAllGather(CommLink& link, const CollCall& call);
Status OneShotBroadcast(CommLink& link, const CollCall& call);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_ONESHOT_MESSAGES_H_
