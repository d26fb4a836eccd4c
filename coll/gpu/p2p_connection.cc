// The stream-ordered point-to-point connection with one peer (p2p_connection.h).
#include "coll/gpu/p2p_connection.h"

#include <cuda_runtime.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "coll/host/conn_group.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

static_assert(kFifoSteps * sizeof(DevP2pHeader) <= P2pConnection::kHeadOffset - P2pConnection::kHeadersOffset,
              "the header ring fits between the tail line and the head line");

uint8_t* At(void* base, uint64_t offset) { return static_cast<uint8_t*>(base) + offset; }

// One message of `bytes` each way with `peer` on `tag`.
Status Swap(CommLink& link, int peer, int tag, const void* mine, void* theirs, size_t bytes) {
  std::array<LinkRequest*, 2> requests{};
  GR_ASSIGN_OR_RETURN(requests[0], link.Irecv(peer, tag, theirs, bytes));
  auto sent = link.Isend(peer, tag, mine, bytes);
  if (!sent.ok()) {
    (void)link.WaitAll(std::span<LinkRequest*>(requests.data(), 1), "stream-ordered point-to-point set-up");
    return sent.status();
  }
  requests[1] = *sent;
  return link.WaitAll(requests, "stream-ordered point-to-point set-up");
}

}  // namespace

StatusOr<std::unique_ptr<P2pConnection>> P2pConnection::Connect(CommLink& link, int peer, int device, int nchannels,
                                                                uint64_t buffer_bytes, int tag) {
  if (nchannels < 1 || nchannels > kMaxP2pChannels) {
    return InvalidArgument("point-to-point channel count " + std::to_string(nchannels) + " is outside 1.." +
                           std::to_string(kMaxP2pChannels));
  }
  std::unique_ptr<P2pConnection> c(new P2pConnection(peer, device, nchannels, buffer_bytes));
  GR_RETURN_IF_ERROR(c->Exchange(link, tag));
  GR_RETURN_IF_ERROR(c->WriteChannels());
  GR_LOG(Info, P2p) << "stream-ordered point-to-point with " << link.DescribePeer(peer) << " ready: GPU " << device
                    << ", " << nchannels << " channels of " << buffer_bytes << " B FIFOs in "
                    << PeerPathName(c->mine_->path());
  return c;
}

StatusOr<PeerPath> P2pConnection::ChoosePath(CommLink& link, int tag) {
  ConnectionShape me{};
  GR_ASSIGN_OR_RETURN(me.gpu, IdentityOf(device_));
  me.nchannels = nchannels_;
  me.buffer_bytes = buffer_bytes_;
  ConnectionShape them{};
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &me, &them, sizeof(me)));
  GR_RETURN_IF_ERROR(CheckSameShape(link, peer_, me, them, "stream-ordered point-to-point",
                                    "GPURUN_P2P_NCHANNELS / GPURUN_P2P_BUFFSIZE"));
  GR_ASSIGN_OR_RETURN(const PathChoice choice, LoadPathChoice());
  return PathTo(link, peer_, device_, them.gpu, choice, "stream-ordered point-to-point");
}

Status P2pConnection::Exchange(CommLink& link, int tag) {
  // The second and third messages go also when this side failed, so the
  // peer is never left waiting for them.
  Status made;
  const MemoryOffer me = OfferOwnMemory(
      ChoosePath(link, tag), device_, kControlBytes + buffer_bytes_ * static_cast<uint64_t>(nchannels_),
      ConnGroup::SegmentName(link.UniqueName(), kGpuP2pSegmentGroupBase + peer_, link.rank()), &mine_, &made);
  MemoryOffer them{};
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &me, &them, sizeof(me)));
  GR_RETURN_IF_ERROR(made);
  if (them.ok == 0) return RemoteError("stream-ordered point-to-point set-up failed on " + link.DescribePeer(peer_));
  auto mapped = PeerMapping::Open(them.memory, device_);
  const char mine_ok = mapped.ok() ? 1 : 0;
  char their_ok = 0;
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &mine_ok, &their_ok, 1));
  if (!mapped.ok()) return mapped.status();
  theirs_ = std::move(mapped).value();
  if (their_ok == 0) return RemoteError("stream-ordered point-to-point set-up failed on " + link.DescribePeer(peer_));
  return mine_->Unlink();  // the peer mapped it
}

Status P2pConnection::WriteChannels() {
  void* mine = mine_->device_ptr();
  void* theirs = theirs_->device_ptr();
  std::vector<DevP2pSendChan> send(static_cast<size_t>(nchannels_));
  std::vector<DevP2pRecvChan> recv(static_cast<size_t>(nchannels_));
  for (int ch = 0; ch < nchannels_; ++ch) {
    const uint64_t counters = kCounterStride * static_cast<uint64_t>(ch);
    const uint64_t fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(ch);
    DevP2pSendChan& s = send[static_cast<size_t>(ch)];
    s.fifo = At(theirs, fifo);
    s.tail = reinterpret_cast<uint64_t*>(At(theirs, counters));
    s.headers = reinterpret_cast<DevP2pHeader*>(At(theirs, counters + kHeadersOffset));
    s.head = reinterpret_cast<const uint64_t*>(At(mine, counters + kHeadOffset));
    s.step = 0;
    DevP2pRecvChan& r = recv[static_cast<size_t>(ch)];
    r.fifo = At(mine, fifo);
    r.tail = reinterpret_cast<const uint64_t*>(At(mine, counters));
    r.headers = reinterpret_cast<const DevP2pHeader*>(At(mine, counters + kHeadersOffset));
    r.head = reinterpret_cast<uint64_t*>(At(theirs, counters + kHeadOffset));
    r.step = 0;
  }
  GR_ASSIGN_OR_RETURN(void* s, cuda::UploadToDevice(device_, send.data(), sizeof(DevP2pSendChan) * send.size()));
  send_chans_ = static_cast<DevP2pSendChan*>(s);
  GR_ASSIGN_OR_RETURN(void* r, cuda::UploadToDevice(device_, recv.data(), sizeof(DevP2pRecvChan) * recv.size()));
  recv_chans_ = static_cast<DevP2pRecvChan*>(r);
  return OkStatus();
}

P2pConnection::~P2pConnection() {
  cudaSetDevice(device_);
  if (send_chans_ != nullptr) cudaFree(send_chans_);
  if (recv_chans_ != nullptr) cudaFree(recv_chans_);
}

}  // namespace gpurun::coll
