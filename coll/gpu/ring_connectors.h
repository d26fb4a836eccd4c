// RingConnectors: the connections of one communicator's GPU ring — per
// channel a Simple FIFO from the previous rank into this one and from this
// one into the next. Each rank allocates one buffer that holds its receiving
// FIFOs and the counters its peers write (the tail of each receiving FIFO,
// the head of each sending one), in its GPU memory through CUDA IPC or, when
// a neighbour's GPU has no peer access to it (or GPURUN_GPU_PATH=host), in
// host shared memory (peer_memory.h); the descriptions go round with
// CommLink::AllGather, each rank maps its two neighbours' buffers and
// writes the resulting DevChannel table into device memory for the kernels.
//
// Layout of a rank's buffer: kControlBytes of counters (channel c at
// c * 256: the receiving tail at +0, the sending head at +128, each on its own
// 128-byte line), one Simple FIFO of buffer_bytes per channel, one LL FIFO
// of ll_buffer_bytes per channel, then, when LL128 is safe on this ring, one
// LL128 FIFO of ll128_buffer_bytes per channel (all protocols share the
// counters: dev_launch.h). LL128 is safe when every rank's FIFOs go through
// CUDA IPC and every rank sees each hop between two GPUs over NVLink (or no
// such hop): a warp's 128-byte store then arrives whole.
//
// Across hosts: a neighbour on another host (any neighbour, with
// GPURUN_COLL_NET=always) is reached over NET
// (coll/host/gpu_net_proxy.h): this rank's side of each such connection is
// host memory its GPU maps (cudaHostAlloc, GpuNetLayout per channel and
// direction), which the DevChannel's connection points at instead of the
// neighbour's buffer, and the proxy moves the steps. Such a ring has no
// LL128 and at most kNetRingChannels channels (unless GPURUN_GPU_NCHANNELS
// says otherwise).
//
// Errors: a rank whose set-up failed fails every rank's, naming it.
#ifndef GPURUN_COLL_GPU_RING_CONNECTORS_H_
#define GPURUN_COLL_GPU_RING_CONNECTORS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coll/device/dev_launch.h"
#include "coll/gpu/peer_memory.h"
#include "coll/host/comm_link.h"
#include "coll/host/gpu_net_proxy.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

class RingConnectors {
 public:
  static constexpr uint64_t kCounterStride = 256;
  static constexpr uint64_t kControlBytes = kCounterStride * kMaxDeviceChannels;
  // Most channels a ring with NET hops proposes (each is one connection
  // per NET hop, all moved by one proxy thread and staged in pinned host
  // memory: two FIFOs of 4.5 MiB per channel and direction by default).
  static constexpr int kNetRingChannels = 4;

  // Collective over `link` (size() >= 2): allocates, exchanges and maps.
  // `nchannels`: the channels every rank asks for, alike on all (0: each
  // rank's topology view, topo::GpuRingChannels, and the ring takes the
  // smallest); nchannels() says what was made.
  // `first_step`: where every connection's steps start (GPURUN_FIRST_STEP, first_step.h).
  // `net`: the proxy of NET hops, needed when a neighbour is on another host.
  static StatusOr<std::unique_ptr<RingConnectors>> Create(CommLink& link, int device, int nchannels,
                                                          uint64_t buffer_bytes, uint64_t ll_buffer_bytes,
                                                          uint64_t ll128_buffer_bytes, uint64_t first_step = 0,
                                                          GpuNetProxy* net = nullptr);
  ~RingConnectors();
  RingConnectors(const RingConnectors&) = delete;
  RingConnectors& operator=(const RingConnectors&) = delete;

  // kMaxDeviceChannels entries in device memory (the first nchannels used).
  DevChannel* channels() const { return channels_; }
  // The ring order (GPURUN_GPU_RING; by default the PCI order of the ranks'
  // GPUs, topo/ring_hints.h): this rank's position, a rank's position, the
  // neighbours' ranks, and the position-to-rank table in device memory.
  int position() const { return position_; }
  int position_of(int rank) const { return positions_[static_cast<size_t>(rank)]; }
  int prev() const { return prev_rank_; }
  int next() const { return next_rank_; }
  const int32_t* ring_ranks() const { return ring_ranks_; }
  int nchannels() const { return nchannels_; }
  // Where this rank's FIFOs are (CUDA IPC or host memory).
  PeerPath path() const { return mine_->path(); }
  // Whether the hop from the previous rank / to the next one is NET.
  bool net_prev() const { return net_prev_; }
  bool net_next() const { return net_next_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }
  uint64_t ll_buffer_bytes() const { return ll_buffer_bytes_; }
  // 0 when the ring has no LL128 FIFOs; ll128_limit() says why.
  uint64_t ll128_buffer_bytes() const { return ll128_buffer_bytes_; }
  const std::string& ll128_limit() const { return ll128_limit_; }

 private:
  RingConnectors() = default;
  StatusOr<PeerPath> ChoosePath(CommLink& link);
  StatusOr<PeerPath> OrderAndPath(CommLink& link, const ConnectionShape& me, const std::vector<ConnectionShape>& all,
                                  const std::vector<std::string>& bus_ids, std::vector<int>* order);
  Status AgreeChannels(CommLink& link, const std::vector<std::string>& bus_ids, const std::vector<int>& order,
                       const StatusOr<PeerPath>& path);
  Status SetOrder(const std::vector<int>& order, int rank);
  Status Exchange(CommLink& link);
  // Where channel `ch`'s LL FIFO starts in this rank's buffer (layout above).
  uint64_t LLFifoOffset(int ch) const {
    return kControlBytes + buffer_bytes_ * static_cast<uint64_t>(nchannels_) +
           ll_buffer_bytes_ * static_cast<uint64_t>(ch);
  }
  Status StartAt(CommLink& link, uint64_t first_step);
  // This rank's side of the NET hops: memory, first-step state, proxy edges.
  Status MakeNetSides(uint64_t first_step);
  // Where channel `ch`'s side of the NET hop to the next rank (`send`) or
  // from the previous one starts in net_memory_ (channel nchannels_'s first:
  // the size of it all).
  uint64_t NetSideOffset(bool send, int ch) const;
  Status WriteChannels(uint64_t first_step);

  int device_ = -1;
  int requested_channels_ = 0;  // GPURUN_GPU_NCHANNELS; 0: from the topology
  int nchannels_ = 0;
  uint64_t buffer_bytes_ = 0;
  uint64_t ll_buffer_bytes_ = 0;
  uint64_t ll128_buffer_bytes_ = 0;
  std::string ll128_limit_;
  std::unique_ptr<OwnMemory> mine_;
  std::unique_ptr<PeerMapping> prev_;  // the previous rank's buffer
  std::unique_ptr<PeerMapping> next_;  // the next rank's (null when it is prev_'s rank, or NET)
  GpuNetProxy* net_ = nullptr;
  bool net_prev_ = false;  // the previous rank is on another host (prev_ is null)
  bool net_next_ = false;  // the next rank is on another host
  GpuNetLayout net_layout_;
  uint64_t net_side_bytes_ = 0;                   // one side's memory, page-rounded
  std::unique_ptr<MappedHostMemory> net_memory_;  // [channel][recv, send] sides that are NET
  bool net_edges_ = false;                        // edges added to net_
  DevChannel* channels_ = nullptr;                // device memory
  std::vector<int> positions_;                    // rank -> ring position
  int position_ = 0;
  int prev_rank_ = 0;
  int next_rank_ = 0;
  int32_t* ring_ranks_ = nullptr;  // device memory: position -> rank
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_RING_CONNECTORS_H_
