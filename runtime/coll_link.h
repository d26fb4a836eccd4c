// RuntimeLink: coll::CommLink (coll/host/comm_link.h) over one communicator
// of the runtime — its peer table entries, and the point-to-point engine on
// the communicator's internal context (tag plan in comm.h). The host
// executor (coll/host) and the point-to-point collectives (coll_p2p.h) talk
// through it.
//
// LinkRequest* values handed out are p2p::Request* of the engine. A request
// stays owned by the engine until WaitAll/Test completes it; a request never
// completed is cancelled by grFinalize like any other.
//
// Thread safety: as the collectives that use it, one thread at a time per
// communicator (the engine itself is thread-safe).
#ifndef GPURUN_RUNTIME_COLL_LINK_H_
#define GPURUN_RUNTIME_COLL_LINK_H_

#include <span>
#include <string>
#include <vector>

#include "coll/host/comm_link.h"
#include "p2p/engine.h"
#include "runtime/base/status.h"
#include "runtime/bootstrap/peer_info.h"
#include "runtime/comm.h"
#include "runtime/device_scratch.h"
#include "runtime/local_copy.h"

namespace gpurun {

class RuntimeLink final : public coll::CommLink {
 public:
  // `comm` must have its context (and engine) set; the link keeps references
  // to the communicator, its engine and the peer table.
  explicit RuntimeLink(grComm& comm);

  int rank() const override { return comm_.rank; }
  int size() const override { return comm_.size; }
  bool SameHost(int peer) const override;
  int LocalSize() const override { return local_size_; }
  bool SharesCores() const override { return engine_.shares_cores(); }
  int HostOf(int peer) const override;
  std::string DescribePeer(int peer) const override;
  // "<job id>-c<context id>w<world rank of comm rank 0>", reduced to
  // [A-Za-z0-9._-] (shared-memory names). The context id alone is not
  // enough: the disjoint groups of one grCommSplit share it.
  std::string UniqueName() const override;

  Status AllGather(const void* mine, size_t bytes, void* all) override;

  // The request keeps `what` for the engine's messages.
  using coll::CommLink::Irecv;
  using coll::CommLink::Isend;
  StatusOr<coll::LinkRequest*> Isend(int peer, int tag, const void* data, size_t bytes, const char* what) override;
  StatusOr<coll::LinkRequest*> Irecv(int peer, int tag, void* data, size_t bytes, const char* what) override;
  Status WaitAllSized(std::span<coll::LinkRequest*> requests, const char* what, grResult_t mismatch) override;
  Status Test(coll::LinkRequest** request, bool* done) override;
  // No request where the engine can avoid one (an eager slot free, the
  // message arrived already): 2-rank 8-byte scatter and gather.
  Status Send(int peer, int tag, const void* data, size_t bytes, const char* what) override;
  Status StartSend(int peer, int tag, const void* data, size_t bytes, const char* what,
                   coll::LinkRequest** request) override;
  Status Recv(int peer, int tag, void* data, size_t bytes, const char* what, grResult_t mismatch) override;
  Status CheckPeer(int peer) override;

  // GPU scratch memory of this communicator (device_scratch.h).
  DeviceScratch& device_scratch() { return device_scratch_; }
  // The own-block copy of the point-to-point collectives (local_copy.h).
  LocalCopy& local_copy() { return local_copy_; }

 private:
  // OK, or InternalError: a collective's own peer (and tag) out of range.
  Status CheckRank(int peer) const {
    if (peer >= 0 && peer < comm_.size) [[likely]]
      return OkStatus();
    return BadRank(peer);
  }
  Status CheckRankTag(int peer, int tag) const {
    if (peer >= 0 && peer < comm_.size && tag >= coll::kCollTagBase && tag <= GR_TAG_UB) [[likely]]
      return OkStatus();
    return CheckRank(peer).ok() ? BadTag(tag) : BadRank(peer);
  }
  // The engine's arguments for a message to / from comm rank `peer` on the
  // internal context (after CheckRankTag).
  p2p::SendArgs SendArgsTo(int peer, int tag, const void* data, size_t bytes, const char* what) const {
    return p2p::SendArgs{comm_.internal_context_id, comm_.rank, peer, comm_.world_ranks[peer], tag, data, bytes, what};
  }
  p2p::RecvArgs RecvArgsFrom(int peer, int tag, void* data, size_t bytes, const char* what) const {
    return p2p::RecvArgs{comm_.internal_context_id, peer, comm_.world_ranks[peer], tag, data, bytes, 1, what};
  }
  Status BadTag(int tag) const;
  Status BadRank(int peer) const;
  // Whether a receive of `expected` bytes from `peer` that ended with `st`
  // got another size; if so *error says who sent what, with code `mismatch`.
  bool WrongSize(const grStatus_t& st, int peer, size_t expected, const char* what, grResult_t mismatch,
                 Status* error) const {
    if (st.error != grTruncated && (st.error != grSuccess || st.bytes == expected)) [[likely]]
      return false;
    *error = SizeError(st, peer, expected, what, mismatch);
    return true;
  }
  Status SizeError(const grStatus_t& st, int peer, size_t expected, const char* what, grResult_t mismatch) const;
  const PeerInfo& PeerOf(int peer) const { return peers_[comm_.world_ranks[peer]]; }

  grComm& comm_;
  p2p::Engine& engine_;
  const std::vector<PeerInfo>& peers_;
  int local_size_ = 1;
  DeviceScratch device_scratch_;
  LocalCopy local_copy_;
};

}  // namespace gpurun

#endif  // GPURUN_RUNTIME_COLL_LINK_H_
