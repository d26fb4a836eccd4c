// P2pConnection: the stream-ordered point-to-point connection between this
// rank and one peer, both directions (format in coll/device/p2p_launch.h).
// Made by the pair's first stream-ordered call (both ranks make it, each in
// its own first call with the other): the two say which GPU they use, each
// allocates one buffer holding the FIFOs the peer sends into and the
// counters the peer writes — in its GPU memory through CUDA IPC, or in host
// shared memory where the GPUs have no peer access (peer_memory.h) — the two
// swap its description, map the other's, and say so (three messages each way
// on the communicator's internal context). All of it runs on private
// streams, so it never waits for a kernel of this process that may be
// waiting for the peer.
//
// Across hosts (or with GPURUN_COLL_NET=always) the pair's connection is
// NET (coll/host/gpu_net_proxy.h): each side's FIFOs, counters and header
// rings are host memory its GPU maps (one GpuNetLayout per channel and
// direction, at most kNetChannels channels), the two swap their UCX worker
// addresses on the same tag, and the caller's proxy moves the steps.
//
// Layout of a rank's buffer: per channel c at c * kCounterStride the
// receiving tail (+0), the receiving header ring (+128, kFifoSteps headers),
// the sending head (+256), each on its own 128-byte line; then one FIFO of
// buffer_bytes per channel.
#ifndef GPURUN_COLL_GPU_P2P_CONNECTION_H_
#define GPURUN_COLL_GPU_P2P_CONNECTION_H_

#include <cstdint>
#include <memory>

#include "coll/device/p2p_launch.h"
#include "coll/gpu/peer_memory.h"
#include "coll/host/comm_link.h"
#include "coll/host/gpu_net_proxy.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

class P2pConnection {
 public:
  static constexpr uint64_t kCounterStride = 512;
  static constexpr uint64_t kHeadersOffset = 128;
  static constexpr uint64_t kHeadOffset = 256;
  static constexpr uint64_t kControlBytes = kCounterStride * kMaxP2pChannels;
  // Most channels of a NET connection (each pins two FIFOs of host memory).
  static constexpr int kNetChannels = 4;

  // Pairwise with `peer` (which must make the same call): allocates,
  // exchanges on `tag` of the internal context, maps. `net`: the proxy of
  // a NET connection (null: the pair meets through CUDA IPC or host shared
  // memory); both sides must agree (StreamP2p decides alike on both).
  static StatusOr<std::unique_ptr<P2pConnection>> Connect(CommLink& link, int peer, int device, int nchannels,
                                                          uint64_t buffer_bytes, int tag, GpuNetProxy* net = nullptr);
  ~P2pConnection();
  P2pConnection(const P2pConnection&) = delete;
  P2pConnection& operator=(const P2pConnection&) = delete;

  int peer() const { return peer_; }
  int nchannels() const { return nchannels_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }
  // Device memory, nchannels() entries each.
  DevP2pSendChan* send_chans() const { return send_chans_; }
  DevP2pRecvChan* recv_chans() const { return recv_chans_; }

 private:
  P2pConnection(int peer, int device, int nchannels, uint64_t buffer_bytes)
      : peer_(peer), device_(device), nchannels_(nchannels), buffer_bytes_(buffer_bytes) {}
  StatusOr<PeerPath> ChoosePath(CommLink& link, int tag);
  Status Exchange(CommLink& link, int tag);
  Status WriteChannels();
  // The NET set-up: shapes and UCX addresses swapped, this side's memory
  // made and its edges given to net_; then whether both sides succeeded.
  Status ConnectNet(CommLink& link, int tag);
  // The first message each way: the GPU and the FIFO shape, checked alike.
  Status SwapShapes(CommLink& link, int tag, ConnectionShape* them);
  Status MakeNetSides();
  // The kernels' channel tables: NET sides, or the two mapped buffers.
  void WriteNetChannels(DevP2pSendChan* send, DevP2pRecvChan* recv) const;
  void WriteMappedChannels(DevP2pSendChan* send, DevP2pRecvChan* recv) const;
  // Where channel `ch`'s sending (or receiving) side starts in net_memory_
  // (channel nchannels_'s receiving one: the size of it all).
  uint64_t NetSideOffset(bool send, int ch) const;

  int peer_;
  int device_;
  int nchannels_;
  uint64_t buffer_bytes_;
  std::unique_ptr<OwnMemory> mine_;
  std::unique_ptr<PeerMapping> theirs_;
  GpuNetProxy* net_ = nullptr;
  uint64_t net_side_bytes_ = 0;
  std::unique_ptr<MappedHostMemory> net_memory_;  // [channel][recv, send]
  bool net_edges_ = false;
  DevP2pSendChan* send_chans_ = nullptr;
  DevP2pRecvChan* recv_chans_ = nullptr;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_P2P_CONNECTION_H_
