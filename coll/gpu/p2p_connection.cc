// The stream-ordered point-to-point connection with one peer (p2p_connection.h).
#include "coll/gpu/p2p_connection.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "coll/host/conn_group.h"
#include "coll/int_math.h"
#include "p2p/cuda_ipc/cuda_status.h"
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
                                                                uint64_t buffer_bytes, int tag, GpuNetProxy* net) {
  if (nchannels < 1 || nchannels > kMaxP2pChannels) {
    return InvalidArgument("point-to-point channel count " + std::to_string(nchannels) + " is outside 1.." +
                           std::to_string(kMaxP2pChannels));
  }
  std::unique_ptr<P2pConnection> c(new P2pConnection(peer, device, nchannels, buffer_bytes));
  if (net != nullptr) {
    c->net_ = net;
    GR_RETURN_IF_ERROR(c->ConnectNet(link, tag));
  } else {
    GR_RETURN_IF_ERROR(c->Exchange(link, tag));
  }
  GR_RETURN_IF_ERROR(c->WriteChannels());
  GR_LOG(Info, P2p) << "stream-ordered point-to-point with " << link.DescribePeer(peer) << " ready: GPU " << device
                    << ", " << c->nchannels_ << " channels of " << buffer_bytes << " B FIFOs "
                    << (net != nullptr ? std::string("over NET") : "in " + std::string(PeerPathName(c->mine_->path())));
  return c;
}

Status P2pConnection::SwapShapes(CommLink& link, int tag, ConnectionShape* them) {
  ConnectionShape me{};
  GR_ASSIGN_OR_RETURN(me.gpu, IdentityOf(device_));
  me.nchannels = nchannels_;
  me.buffer_bytes = buffer_bytes_;
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &me, them, sizeof(me)));
  return CheckSameShape(link, peer_, me, *them, "stream-ordered point-to-point",
                        "GPURUN_P2P_NCHANNELS / GPURUN_P2P_BUFFSIZE");
}

Status P2pConnection::ConnectNet(CommLink& link, int tag) {
  ConnectionShape them{};
  GR_RETURN_IF_ERROR(SwapShapes(link, tag, &them));
  // The UCX worker addresses: lengths, then the bytes (the longer length each way).
  std::vector<std::byte> mine = net_->Address();
  const uint64_t length = mine.size();
  uint64_t their_length = 0;
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &length, &their_length, sizeof(length)));
  const uint64_t widest = std::max(length, their_length);
  mine.resize(widest);
  std::vector<std::byte> theirs(widest);
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, mine.data(), theirs.data(), widest));
  theirs.resize(their_length);
  // Both sides take part in the last swap also when this side failed, so
  // the peer is never left waiting for it.
  nchannels_ = std::min(nchannels_, kNetChannels);
  Status made = net_->Connect(peer_, theirs);
  if (made.ok()) made = MakeNetSides();
  const char mine_ok = made.ok() ? 1 : 0;
  char their_ok = 0;
  GR_RETURN_IF_ERROR(Swap(link, peer_, tag, &mine_ok, &their_ok, 1));
  GR_RETURN_IF_ERROR(made);
  if (their_ok == 0) return RemoteError("stream-ordered point-to-point set-up failed on " + link.DescribePeer(peer_));
  return OkStatus();
}

Status P2pConnection::MakeNetSides() {
  const GpuNetLayout layout{buffer_bytes_, 0};
  net_side_bytes_ = AlignUp(layout.Bytes(), uint64_t{4096});
  GR_ASSIGN_OR_RETURN(net_memory_, MappedHostMemory::Create(NetSideOffset(false, nchannels_)));
  for (int ch = 0; ch < nchannels_; ++ch) {
    for (bool send : {false, true}) {
      GpuNetEdge edge;
      edge.peer = peer_;
      edge.send = send;
      edge.edge = static_cast<uint32_t>(ch);
      edge.base = net_memory_->host() + NetSideOffset(send, ch);
      edge.layout = layout;
      edge.owner = this;
      edge.p2p = true;
      GR_RETURN_IF_ERROR(net_->AddEdge(edge));
      net_edges_ = true;
    }
  }
  return OkStatus();
}

uint64_t P2pConnection::NetSideOffset(bool send, int ch) const {
  return (static_cast<uint64_t>(ch) * 2 + (send ? 1 : 0)) * net_side_bytes_;
}

void P2pConnection::WriteNetChannels(DevP2pSendChan* send, DevP2pRecvChan* recv) const {
  for (int ch = 0; ch < nchannels_; ++ch) {
    uint8_t* out = net_memory_->device(NetSideOffset(true, ch));
    DevP2pSendChan& s = send[ch];
    s.fifo = out + GpuNetLayout::kFifo;
    s.tail = reinterpret_cast<uint64_t*>(out + GpuNetLayout::kTail);
    s.headers = reinterpret_cast<DevP2pHeader*>(out + GpuNetLayout::kHeaders);
    s.head = reinterpret_cast<const uint64_t*>(out + GpuNetLayout::kHead);
    s.net_sizes = reinterpret_cast<uint32_t*>(out + GpuNetLayout::kSizes);
    s.step = 0;
    uint8_t* in = net_memory_->device(NetSideOffset(false, ch));
    DevP2pRecvChan& r = recv[ch];
    r.fifo = in + GpuNetLayout::kFifo;
    r.tail = reinterpret_cast<const uint64_t*>(in + GpuNetLayout::kTail);
    r.headers = reinterpret_cast<const DevP2pHeader*>(in + GpuNetLayout::kHeaders);
    r.head = reinterpret_cast<uint64_t*>(in + GpuNetLayout::kHead);
    r.step = 0;
  }
}

StatusOr<PeerPath> P2pConnection::ChoosePath(CommLink& link, int tag) {
  ConnectionShape them{};
  GR_RETURN_IF_ERROR(SwapShapes(link, tag, &them));
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
  std::vector<DevP2pSendChan> send(static_cast<size_t>(nchannels_));
  std::vector<DevP2pRecvChan> recv(static_cast<size_t>(nchannels_));
  if (net_ != nullptr) {
    WriteNetChannels(send.data(), recv.data());
  } else {
    WriteMappedChannels(send.data(), recv.data());
  }
  GR_ASSIGN_OR_RETURN(void* s, cuda::UploadToDevice(device_, send.data(), sizeof(DevP2pSendChan) * send.size()));
  send_chans_ = static_cast<DevP2pSendChan*>(s);
  GR_ASSIGN_OR_RETURN(void* r, cuda::UploadToDevice(device_, recv.data(), sizeof(DevP2pRecvChan) * recv.size()));
  recv_chans_ = static_cast<DevP2pRecvChan*>(r);
  return OkStatus();
}

void P2pConnection::WriteMappedChannels(DevP2pSendChan* send, DevP2pRecvChan* recv) const {
  void* mine = mine_->device_ptr();
  void* theirs = theirs_->device_ptr();
  for (int ch = 0; ch < nchannels_; ++ch) {
    const uint64_t counters = kCounterStride * static_cast<uint64_t>(ch);
    const uint64_t fifo = kControlBytes + buffer_bytes_ * static_cast<uint64_t>(ch);
    DevP2pSendChan& s = send[ch];
    s.fifo = At(theirs, fifo);
    s.tail = reinterpret_cast<uint64_t*>(At(theirs, counters));
    s.headers = reinterpret_cast<DevP2pHeader*>(At(theirs, counters + kHeadersOffset));
    s.head = reinterpret_cast<const uint64_t*>(At(mine, counters + kHeadOffset));
    s.step = 0;
    DevP2pRecvChan& r = recv[ch];
    r.fifo = At(mine, fifo);
    r.tail = reinterpret_cast<const uint64_t*>(At(mine, counters));
    r.headers = reinterpret_cast<const DevP2pHeader*>(At(mine, counters + kHeadersOffset));
    r.head = reinterpret_cast<uint64_t*>(At(theirs, counters + kHeadOffset));
    r.step = 0;
  }
}

P2pConnection::~P2pConnection() {
  cudaSetDevice(device_);
  // The proxy lets go of the NET sides before their memory goes.
  if (net_edges_) net_->RemoveOwner(this);
  net_memory_.reset();
  if (send_chans_ != nullptr) cudaFree(send_chans_);
  if (recv_chans_ != nullptr) cudaFree(recv_chans_);
}

}  // namespace gpurun::coll
