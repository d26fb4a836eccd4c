// The stream-ordered point-to-point connection with one peer (p2p_connection.h).
#include "coll/gpu/p2p_connection.h"

#include <cuda_runtime.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "coll/gpu/peer_reach.h"
#include "runtime/base/log.h"

namespace gpurun::coll {
namespace {

// What each rank sends its peer about its buffer.
struct PeerRecord {
  cuda::IpcHandle handle;
  char bus_id[32];
  int32_t nchannels;
  int32_t pad;
  uint64_t buffer_bytes;
};

static_assert(kFifoSteps * sizeof(DevP2pHeader) <= P2pConnection::kHeadOffset - P2pConnection::kHeadersOffset,
              "the header ring fits between the tail line and the head line");

uint8_t* At(void* base, uint64_t offset) { return static_cast<uint8_t*>(base) + offset; }

}  // namespace

StatusOr<std::unique_ptr<P2pConnection>> P2pConnection::Connect(CommLink& link, int peer, int device, int nchannels,
                                                                uint64_t buffer_bytes, int tag) {
  if (nchannels < 1 || nchannels > kMaxP2pChannels) {
    return InvalidArgument("point-to-point channel count " + std::to_string(nchannels) + " is outside 1.." +
                           std::to_string(kMaxP2pChannels));
  }
  std::unique_ptr<P2pConnection> c(new P2pConnection(peer, device, nchannels, buffer_bytes));
  GR_ASSIGN_OR_RETURN(
      c->mine_, cuda::IpcBuffer::Allocate(device, kControlBytes + buffer_bytes * static_cast<uint64_t>(nchannels)));
  GR_RETURN_IF_ERROR(c->Exchange(link, tag));
  GR_RETURN_IF_ERROR(c->WriteChannels());
  GR_LOG(Info, P2p) << "stream-ordered point-to-point with " << link.DescribePeer(peer) << " ready: GPU " << device
                    << ", " << nchannels << " channels of " << buffer_bytes << " B FIFOs over CUDA IPC";
  return c;
}

Status P2pConnection::Exchange(CommLink& link, int tag) {
  PeerRecord me{};
  me.handle = mine_->handle();
  GR_ASSIGN_OR_RETURN(const std::string bus_id, BusIdOf(device_));
  std::strncpy(me.bus_id, bus_id.c_str(), sizeof(me.bus_id) - 1);
  me.nchannels = nchannels_;
  me.buffer_bytes = buffer_bytes_;
  PeerRecord them{};
  std::array<LinkRequest*, 2> requests{};
  GR_ASSIGN_OR_RETURN(requests[0], link.Irecv(peer_, tag, &them, sizeof(them)));
  auto sent = link.Isend(peer_, tag, &me, sizeof(me));
  if (!sent.ok()) {
    (void)link.WaitAll(std::span<LinkRequest*>(requests.data(), 1), "stream-ordered point-to-point set-up");
    return sent.status();
  }
  requests[1] = *sent;
  GR_RETURN_IF_ERROR(link.WaitAll(requests, "stream-ordered point-to-point set-up"));
  them.bus_id[sizeof(them.bus_id) - 1] = '\0';
  if (them.nchannels != nchannels_ || them.buffer_bytes != buffer_bytes_) {
    return InvalidUsage("stream-ordered point-to-point set-up differs: " + link.DescribePeer(peer_) + " has " +
                        std::to_string(them.nchannels) + " channels of " + std::to_string(them.buffer_bytes) +
                        " B, this rank " + std::to_string(nchannels_) + " of " + std::to_string(buffer_bytes_) +
                        " B (set GPURUN_P2P_NCHANNELS / GPURUN_P2P_BUFFSIZE alike on every rank)");
  }
  GR_RETURN_IF_ERROR(CheckPeerReach(link, peer_, device_, them.bus_id, "stream-ordered point-to-point"));
  GR_ASSIGN_OR_RETURN(theirs_, cuda::IpcMapping::Open(device_, them.handle));
  return OkStatus();
}

Status P2pConnection::WriteChannels() {
  void* mine = mine_->data();
  void* theirs = theirs_->data();
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
