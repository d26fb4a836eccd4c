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
// Errors: ranks on different hosts (the NET path is not built) are
// Unsupported; a rank whose set-up failed fails every rank's, naming it.
#ifndef GPURUN_COLL_GPU_RING_CONNECTORS_H_
#define GPURUN_COLL_GPU_RING_CONNECTORS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "coll/device/dev_launch.h"
#include "coll/gpu/peer_memory.h"
#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

class RingConnectors {
 public:
  static constexpr uint64_t kCounterStride = 256;
  static constexpr uint64_t kControlBytes = kCounterStride * kMaxDeviceChannels;

  // Collective over `link` (size() >= 2): allocates, exchanges and maps.
  // `nchannels`: the channels every rank asks for, alike on all (0: each
  // rank's topology view, topo::GpuRingChannels, and the ring takes the
  // smallest); nchannels() says what was made.
  // `first_step`: where every connection's steps start (GPURUN_FIRST_STEP, first_step.h).
  static StatusOr<std::unique_ptr<RingConnectors>> Create(CommLink& link, int device, int nchannels,
                                                          uint64_t buffer_bytes, uint64_t ll_buffer_bytes,
                                                          uint64_t ll128_buffer_bytes, uint64_t first_step = 0);
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
  std::unique_ptr<PeerMapping> next_;  // the next rank's (null when it is prev_'s rank)
  DevChannel* channels_ = nullptr;     // device memory
  std::vector<int> positions_;         // rank -> ring position
  int position_ = 0;
  int prev_rank_ = 0;
  int next_rank_ = 0;
  int32_t* ring_ranks_ = nullptr;  // device memory: position -> rank
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_RING_CONNECTORS_H_
