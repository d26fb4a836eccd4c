// RuntimeLink: CommLink over the runtime's communicator, peer table and
// point-to-point engine (see coll_link.h).
#include "runtime/coll_link.h"

#include <cstdio>

#include <algorithm>
#include <array>
#include <cstring>
#include <span>

#include "p2p/request.h"
#include "runtime/context.h"

namespace gpurun {
namespace {

p2p::Request* ToRequest(coll::LinkRequest* r) { return reinterpret_cast<p2p::Request*>(r); }
coll::LinkRequest* ToLink(p2p::Request* r) { return reinterpret_cast<coll::LinkRequest*>(r); }

// What WaitAll/Test need to know of a request after the engine freed it.
struct Posted {
  bool recv = false;
  size_t bytes = 0;  // receive: bytes expected
  int peer = 0;
};

Posted PostedOf(const p2p::Request* r) { return Posted{r->kind == p2p::RequestKind::kRecv, r->bytes, r->peer}; }

bool ShmNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

}  // namespace

RuntimeLink::RuntimeLink(grComm& comm) : comm_(comm), engine_(comm.context->engine()), peers_(comm.context->peers()) {
  local_size_ = 0;
  for (int p = 0; p < comm_.size; ++p) local_size_ += SameHost(p) ? 1 : 0;
}

bool RuntimeLink::SameHost(int peer) const {
  if (peer < 0 || peer >= comm_.size) return false;
  return PeerOf(peer).node_id == PeerOf(comm_.rank).node_id;
}

int RuntimeLink::HostOf(int peer) const {
  if (peer < 0 || peer >= comm_.size) return -1;
  return PeerOf(peer).node_id;
}

std::string RuntimeLink::DescribePeer(int peer) const {
  if (peer < 0 || peer >= comm_.size) return "rank " + std::to_string(peer) + " (not a member)";
  const PeerInfo& p = PeerOf(peer);
  std::string world;
  if (!comm_.is_world) world = "world rank " + std::to_string(comm_.world_ranks[peer]) + ", ";
  return "rank " + std::to_string(peer) + " (" + world + "host " + p.host + ", pid " + std::to_string(p.pid) + ")";
}

std::string RuntimeLink::UniqueName() const {
  // Disjoint communicators from one split share a context id; their first
  // members differ, and every member knows the first member's world rank.
  // "<job>-<context id, 10 digits><world rank of member 0, 10 digits>": all
  // digits after the job's prefix, as p2p::RemoveShmSegments(job) expects of
  // the segments it removes after a crash (the executor appends more digits).
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%010u%010d", comm_.context_id, comm_.world_ranks[0]);
  std::string name = comm_.context->bootstrap().identity().job_id + "-" + digits;
  for (char& c : name) {
    if (!ShmNameChar(c)) c = '_';
  }
  return name;
}

Status RuntimeLink::BadTag(int tag) const {
  return InternalError("collective tag " + std::to_string(tag) + " is outside the collectives' range [" +
                       std::to_string(coll::kCollTagBase) + ", GR_TAG_UB]");
}

Status RuntimeLink::BadRank(int peer) const {
  return InternalError("collective peer rank " + std::to_string(peer) + " is outside [0, " +
                       std::to_string(comm_.size) + ")");
}

StatusOr<coll::LinkRequest*> RuntimeLink::Isend(int peer, int tag, const void* data, size_t bytes, const char* what) {
  GR_RETURN_IF_ERROR(CheckRankTag(peer, tag));
  const p2p::SendArgs args = SendArgsTo(peer, tag, data, bytes, what);
  GR_ASSIGN_OR_RETURN(p2p::Request * r, engine_.Isend(args));
  return ToLink(r);
}

StatusOr<coll::LinkRequest*> RuntimeLink::Irecv(int peer, int tag, void* data, size_t bytes, const char* what) {
  GR_RETURN_IF_ERROR(CheckRankTag(peer, tag));
  const p2p::RecvArgs args = RecvArgsFrom(peer, tag, data, bytes, what);
  GR_ASSIGN_OR_RETURN(p2p::Request * r, engine_.Irecv(args));
  return ToLink(r);
}

Status RuntimeLink::WaitAllSized(std::span<coll::LinkRequest*> requests, const char* what, grResult_t mismatch) {
  const size_t n = requests.size();
  // Up to kInline requests (a StepWindow's step has 2) on the stack: three
  // vectors a call were a tenth of a 2-rank 8-byte scatter's time (perf,
  // 2026-12-02).
  constexpr size_t kInline = 4;
  std::array<p2p::Request*, kInline> inline_reqs{};
  std::array<Posted, kInline> inline_posted{};
  std::array<grStatus_t, kInline> inline_statuses{};
  std::vector<p2p::Request*> heap_reqs;
  std::vector<Posted> heap_posted;
  std::vector<grStatus_t> heap_statuses;
  if (n > kInline) {
    heap_reqs.resize(n);
    heap_posted.resize(n);
    heap_statuses.resize(n);
  }
  const std::span<p2p::Request*> reqs(n > kInline ? heap_reqs.data() : inline_reqs.data(), n);
  Posted* const posted = n > kInline ? heap_posted.data() : inline_posted.data();
  grStatus_t* const statuses = n > kInline ? heap_statuses.data() : inline_statuses.data();
  for (size_t i = 0; i < n; ++i) {
    reqs[i] = ToRequest(requests[i]);
    if (reqs[i] != nullptr) posted[i] = PostedOf(reqs[i]);
  }
  const Status waited = engine_.WaitAll(reqs, statuses, what);
  for (const p2p::Request* r : reqs) {
    if (r != nullptr) return waited;  // the list was rejected before anything was waited for
  }
  // The engine completed and freed every request; its error is the first in array order.
  for (size_t i = 0; i < n; ++i) {
    if (requests[i] == nullptr) continue;
    requests[i] = nullptr;
    const grStatus_t& st = statuses[i];
    Status wrong;
    if (posted[i].recv && WrongSize(st, posted[i].peer, posted[i].bytes, what, mismatch, &wrong)) {
      std::fill(requests.begin() + i, requests.end(), nullptr);
      return wrong;
    }
    if (st.error != grSuccess) {
      std::fill(requests.begin() + i, requests.end(), nullptr);
      return waited;
    }
  }
  return waited;
}

Status RuntimeLink::SizeError(const grStatus_t& st, int peer, size_t expected, const char* what,
                              grResult_t mismatch) const {
  const std::string want = std::to_string(expected);
  const std::string sent = st.error == grTruncated
                               ? "more than the " + want + " bytes expected"
                               : std::to_string(st.bytes) + " bytes where " + want + " were expected";
  return Status(mismatch, std::string(what) + ": " + DescribePeer(peer) + " sent " + sent +
                              " (counts or types differ between the ranks)");
}

Status RuntimeLink::Send(int peer, int tag, const void* data, size_t bytes, const char* what) {
  GR_RETURN_IF_ERROR(CheckRankTag(peer, tag));
  const p2p::SendArgs args = SendArgsTo(peer, tag, data, bytes, what);
  return engine_.Send(args);  // its errors name `what` and the peer (Request::Describe)
}

Status RuntimeLink::StartSend(int peer, int tag, const void* data, size_t bytes, const char* what,
                              coll::LinkRequest** request) {
  *request = nullptr;
  GR_RETURN_IF_ERROR(CheckRankTag(peer, tag));
  const p2p::SendArgs args = SendArgsTo(peer, tag, data, bytes, what);
  p2p::Request* r = nullptr;
  const Status started = engine_.StartSend(args, &r);
  *request = ToLink(r);
  return started;
}

Status RuntimeLink::Recv(int peer, int tag, void* data, size_t bytes, const char* what, grResult_t mismatch) {
  GR_RETURN_IF_ERROR(CheckRankTag(peer, tag));
  const p2p::RecvArgs args = RecvArgsFrom(peer, tag, data, bytes, what);
  grStatus_t st{};
  const Status received = engine_.Recv(args, &st);
  if (!received.ok() && received.code() != grTruncated) return received;  // st unset, or not about the size
  Status wrong;
  if (WrongSize(st, peer, bytes, what, mismatch, &wrong)) return wrong;
  return received;
}

Status RuntimeLink::Test(coll::LinkRequest** request, bool* done) {
  p2p::Request* r = ToRequest(*request);
  if (r == nullptr) return InternalError("collective Test of a null request");
  const Posted posted = PostedOf(r);
  grStatus_t st;
  const Status tested = engine_.Test(r, done, &st);
  if (!*done) return tested;
  *request = nullptr;
  if (posted.recv && (st.error == grTruncated || (st.error == grSuccess && st.bytes != posted.bytes))) {
    return InternalError(DescribePeer(posted.peer) + " sent a message of another size than the " +
                         std::to_string(posted.bytes) + " bytes expected");
  }
  return tested;
}

Status RuntimeLink::CheckPeer(int peer) {
  GR_RETURN_IF_ERROR(CheckRank(peer));
  const Status failed = engine_.PeerFailure(comm_.world_ranks[peer]);
  if (failed.ok()) return OkStatus();
  if (failed.code() != grRemoteError) return failed;
  return RemoteError(DescribePeer(peer) + " failed: " + failed.message());
}

Status RuntimeLink::AllGather(const void* mine, size_t bytes, void* all) {
  static constexpr const char* kWhat = "collective setup all-gather";
  auto* out = static_cast<std::byte*>(all);
  std::vector<coll::LinkRequest*> requests;
  requests.reserve(2 * static_cast<size_t>(comm_.size));
  Status posted;
  for (int p = 0; p < comm_.size && posted.ok(); ++p) {
    if (p == comm_.rank) continue;
    StatusOr<coll::LinkRequest*> r = Irecv(p, kTagLinkAllGather, out + p * bytes, bytes, kWhat);
    if (r.ok()) requests.push_back(*r);
    posted = r.status();
  }
  for (int p = 0; p < comm_.size && posted.ok(); ++p) {
    if (p == comm_.rank) continue;
    StatusOr<coll::LinkRequest*> r = Isend(p, kTagLinkAllGather, mine, bytes, kWhat);
    if (r.ok()) requests.push_back(*r);
    posted = r.status();
  }
  std::byte* self = out + comm_.rank * bytes;
  if (bytes > 0 && self != mine) std::memmove(self, mine, bytes);
  const Status waited = WaitAllSized(requests, kWhat, grInternalError);
  return posted.ok() ? waited : posted;
}

}  // namespace gpurun
