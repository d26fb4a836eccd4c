// CommLink: what the host collective engine needs from a communicator, and
// nothing more. runtime/ implements it over the point-to-point engine and the
// peer table (runtime/coll_link.{h,cc}); unit tests implement it with threads
// of one process. Ranks are communicator ranks.
//
// Setup (connector exchange, the NET proxy's UCX addresses) uses AllGather;
// the point-to-point collectives (alltoall(v), gather(v), scatter(v)) use the
// Isend/Irecv/WaitAll triple on the communicator's internal context, whose
// tags from kCollTagBase up belong to collectives (cross-host ring / tree
// edges do not: the NET proxy has its own UCX worker, net_proxy.h). Every
// wait in the executor's polling loops calls CheckPeer with the rank it
// waits on, so a dead or aborted peer ends the wait with grRemoteError naming
// it, and the wait's own GPURUN_TIMEOUT clock names it on timeout.
#ifndef GPURUN_COLL_HOST_COMM_LINK_H_
#define GPURUN_COLL_HOST_COMM_LINK_H_

#include <cstddef>
#include <span>
#include <string>

#include "runtime/base/status.h"

namespace gpurun::coll {

// A pending point-to-point operation of a CommLink (opaque: coll/ does not
// depend on p2p/; runtime/ hands out p2p::Request pointers as these, tests
// their own objects).
struct LinkRequest;

// Tags on the internal context below kCollTagBase are the runtime's
// (split/dup use 1, 2); kCollTagBase up to kCollExecutorTagBase - 1 belong to
// the CommLink's own setup exchange and the point-to-point collectives
// (runtime/comm.h lists them); tags from kCollExecutorTagBase up stay
// reserved for the executor (its cross-host edges used them before the NET
// connectors, which travel on the NET proxy's own UCX worker instead).
inline constexpr int kCollTagBase = 16;
inline constexpr int kCollExecutorTagBase = 64;

class CommLink {
 public:
  virtual ~CommLink() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Whether comm rank `peer` runs on this host, so shared memory reaches it.
  virtual bool SameHost(int peer) const = 0;
  // Ranks of this communicator on this host (1 with a single rank).
  virtual int LocalSize() const = 0;
  // Whether this rank shares its cores with other ranks of its host (any
  // communicator's: p2p/core_sharing.h), so that waits spin only briefly
  // before they sleep (p2p/backoff.h).
  virtual bool SharesCores() const = 0;
  // A number for comm rank `peer`'s host, the same on every rank (ranks on
  // one host share it), so all ranks can work out the same layout.
  virtual int HostOf(int peer) const = 0;
  // "rank 3 (host h, pid 1234)": how errors name a peer.
  virtual std::string DescribePeer(int peer) const = 0;
  // A string unique to this communicator within the job and stable across
  // its ranks (names shared-memory segments together with the rank).
  virtual std::string UniqueName() const = 0;

  // Collective: `bytes` bytes at `mine` from every rank, in rank order, into
  // `all` (size() * bytes).
  virtual Status AllGather(const void* mine, size_t bytes, void* all) = 0;

  // Point-to-point on the internal context. A request is owned by the link
  // until WaitAll/Test completes it. `what` (a static string: "grGather")
  // names the operation in the request's own errors.
  virtual StatusOr<LinkRequest*> Isend(int peer, int tag, const void* data, size_t bytes, const char* what) = 0;
  virtual StatusOr<LinkRequest*> Irecv(int peer, int tag, void* data, size_t bytes, const char* what) = 0;
  StatusOr<LinkRequest*> Isend(int peer, int tag, const void* data, size_t bytes) {
    return Isend(peer, tag, data, bytes, "collective send");
  }
  StatusOr<LinkRequest*> Irecv(int peer, int tag, void* data, size_t bytes) {
    return Irecv(peer, tag, data, bytes, "collective receive");
  }
  // Completes (and frees, nulling the entries) every non-null request, whatever
  // fails; returns the first error in array order, prefixed with `what`. A
  // received message of another size than posted fails with `mismatch`
  // naming the sender: grInvalidUsage where the sizes came from the user's
  // counts, grInternalError where the library chose them (WaitAll).
  virtual Status WaitAllSized(std::span<LinkRequest*> requests, const char* what, grResult_t mismatch) = 0;
  Status WaitAll(std::span<LinkRequest*> requests, const char* what) {
    return WaitAllSized(requests, what, grInternalError);
  }
  // Never blocks: *done when the request completed (it is then freed).
  virtual Status Test(LinkRequest** request, bool* done) = 0;

  // Blocking send and receive, for where the peer surely posts the matching
  // operation (a rooted collective's non-root side). A received message of
  // another size than `bytes` fails with `mismatch` as in WaitAllSized. The
  // defaults post and wait; the runtime's link skips the request when the
  // message fits a wire's eager slot or has arrived already.
  virtual Status Send(int peer, int tag, const void* data, size_t bytes, const char* what);
  // Isend that may complete at once: *request is then null (nothing to wait
  // for). Never blocks, so both sides of a pair may start their sends first.
  virtual Status StartSend(int peer, int tag, const void* data, size_t bytes, const char* what, LinkRequest** request);
  virtual Status Recv(int peer, int tag, void* data, size_t bytes, const char* what, grResult_t mismatch);

  // Drives point-to-point progress and reports whether `peer` failed (died,
  // aborted): OkStatus or grRemoteError naming it. Cheap enough to call
  // every few microseconds from a polling loop.
  virtual Status CheckPeer(int peer) = 0;
};

inline Status CommLink::Send(int peer, int tag, const void* data, size_t bytes, const char* what) {
  GR_ASSIGN_OR_RETURN(LinkRequest * r, Isend(peer, tag, data, bytes, what));
  return WaitAllSized(std::span<LinkRequest*>(&r, 1), what, grInternalError);
}

inline Status CommLink::StartSend(int peer, int tag, const void* data, size_t bytes, const char* what,
                                  LinkRequest** request) {
  *request = nullptr;
  GR_ASSIGN_OR_RETURN(*request, Isend(peer, tag, data, bytes, what));
  return OkStatus();
}

inline Status CommLink::Recv(int peer, int tag, void* data, size_t bytes, const char* what, grResult_t mismatch) {
  GR_ASSIGN_OR_RETURN(LinkRequest * r, Irecv(peer, tag, data, bytes, what));
  return WaitAllSized(std::span<LinkRequest*>(&r, 1), what, mismatch);
}

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_COMM_LINK_H_
