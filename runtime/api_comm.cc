// C API: communicator queries, split, dup and free (gpurun.h).
#include <algorithm>
#include <cstring>

#include "gpurun/gpurun.h"
#include "runtime/comm_split.h"
#include "runtime/global_context.h"
#include "runtime/last_error.h"

using gpurun::ToResult;

extern "C" grComm_t grCommWorld(void) {
  gpurun::Context* ctx = gpurun::CurrentContext();
  return ctx == nullptr ? nullptr : ctx->world();
}

extern "C" grResult_t grCommRank(grComm_t comm, int* rank) {
  auto c = gpurun::CheckComm(comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommRank"));
  if (rank == nullptr) return ToResult(gpurun::InvalidArgument("grCommRank: rank is null"));
  *rank = (*c)->rank;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCommSize(grComm_t comm, int* size) {
  auto c = gpurun::CheckComm(comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommSize"));
  if (size == nullptr) return ToResult(gpurun::InvalidArgument("grCommSize: size is null"));
  *size = (*c)->size;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCommPeerInfo(grComm_t comm, int rank, grPeerInfo_t* info) {
  auto c = gpurun::CheckComm(comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommPeerInfo"));
  if (info == nullptr) return ToResult(gpurun::InvalidArgument("grCommPeerInfo: info is null"));
  if (rank < 0 || rank >= (*c)->size) {
    return ToResult(gpurun::InvalidArgument("grCommPeerInfo: rank " + std::to_string(rank) + " is outside [0, " +
                                            std::to_string((*c)->size) + ")"));
  }
  const gpurun::PeerInfo& p = (*c)->context->peers()[(*c)->world_ranks[rank]];
  grPeerInfo_t out{};
  out.rank = rank;
  out.local_rank = p.local_rank;
  out.local_size = p.local_size;
  out.node_id = p.node_id;
  out.pid = p.pid;
  const size_t n = std::min(p.host.size(), sizeof(out.host) - 1);
  std::memcpy(out.host, p.host.data(), n);
  *info = out;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCommSplit(grComm_t comm, int color, int key, grComm_t* newcomm) {
  auto c = gpurun::CheckComm(comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommSplit"));
  if (newcomm == nullptr) return ToResult(gpurun::InvalidArgument("grCommSplit: newcomm is null"));
  auto made = gpurun::SplitComm(*(*c)->context, **c, color, key);
  if (!made.ok()) return ToResult(made.status().WithContext("grCommSplit"));
  *newcomm = *made;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCommDup(grComm_t comm, grComm_t* newcomm) {
  auto c = gpurun::CheckComm(comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommDup"));
  if (newcomm == nullptr) return ToResult(gpurun::InvalidArgument("grCommDup: newcomm is null"));
  auto made = gpurun::DupComm(*(*c)->context, **c);
  if (!made.ok()) return ToResult(made.status().WithContext("grCommDup"));
  *newcomm = *made;
  return ToResult(gpurun::OkStatus());
}

extern "C" grResult_t grCommFree(grComm_t* comm) {
  if (comm == nullptr) return ToResult(gpurun::InvalidArgument("grCommFree: comm is null"));
  auto c = gpurun::CheckComm(*comm);
  if (!c.ok()) return ToResult(c.status().WithContext("grCommFree"));
  gpurun::Status freed = (*c)->context->FreeComm(*c);
  if (!freed.ok()) return ToResult(freed.WithContext("grCommFree"));
  *comm = GR_COMM_NULL;
  return ToResult(gpurun::OkStatus());
}
