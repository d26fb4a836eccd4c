// The object behind grComm_t: a group of ranks (communicator rank → world
// rank) and its two matching contexts, `context_id` for the user's messages
// and `internal_context_id` for the runtime's own (split/dup agreement,
// collectives), so that neither ever matches the other. The world
// communicator uses contexts 0 and 1; grCommSplit/grCommDup give each new
// communicator a fresh pair (comm_split.h). Communicators are owned by the
// Context, which also knows which are live; each owns its collective state
// (comm_coll.h), made on its first collective and destroyed with it.
//
// Tags on the internal context (every collective call on one communicator is
// issued in the same order on every rank, and messages of one (source, tag)
// pair never overtake each other, so fixed tags suffice):
//   1, 2          grCommSplit / grCommDup agreement (comm_split.cc)
//   3 .. 15       free, below coll::kCollTagBase (coll/host/comm_link.h)
//   16 .. 31      the CommLink itself (kTagLink*): 16 AllGather (connector
//                 setup), 17 the dissemination barrier
//   32 .. 63      point-to-point collectives (kTagP2p*): 32 alltoall(v),
//                 33 gather(v), 34 scatter(v), 35 allgatherv, 36 and 37 the
//                 set-up and teardown of a pair's stream-ordered GPU
//                 point-to-point connection (coll/gpu/p2p_connection.h),
//                 38 and 39 those of the stream-ordered point-to-point
//                 collectives' own connections (runtime/coll_p2p_stream.h)
//   64 .. GR_TAG_UB  the host executor (coll/host) for its own messages
//                 (cross-host edges), from kTagExecutorBase up
#ifndef GPURUN_RUNTIME_COMM_H_
#define GPURUN_RUNTIME_COMM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "gpurun/gpurun.h"

namespace gpurun {
class Context;
class CommColl;  // comm_coll.h
// Destroys a CommColl (comm_coll.cc), so that grComm needs no complete type.
struct CommCollDeleter {
  void operator()(CommColl* coll) const;
};

// The internal-context tag plan above, in code.
inline constexpr int kTagLinkAllGather = 16;
inline constexpr int kTagLinkBarrier = 17;
inline constexpr int kTagP2pAlltoall = 32;
inline constexpr int kTagP2pGather = 33;
inline constexpr int kTagP2pScatter = 34;
inline constexpr int kTagP2pAllgatherv = 35;
inline constexpr int kTagP2pStreamConnect = 36;
inline constexpr int kTagP2pStreamClose = 37;
inline constexpr int kTagP2pStreamCollConnect = 38;
inline constexpr int kTagP2pStreamCollClose = 39;
inline constexpr int kTagExecutorBase = 64;  // coll::kCollExecutorTagBase
}  // namespace gpurun

struct grComm {
  gpurun::Context* context = nullptr;
  int rank = 0;  // this process's rank in the communicator
  int size = 0;
  std::vector<int> world_ranks;      // communicator rank → world rank
  uint32_t context_id = 0;           // matching context of user messages
  uint32_t internal_context_id = 1;  // matching context of the runtime's messages
  bool is_world = false;
  // Collective state, made by the first collective (CollOf in comm_coll.h).
  std::unique_ptr<gpurun::CommColl, gpurun::CommCollDeleter> coll;
};

#endif  // GPURUN_RUNTIME_COMM_H_
