// TreeConnectors: the connections of one communicator's GPU double binary
// tree (tree allreduce, coll/device/tree_kernel.cuh) — per channel and tree,
// FIFOs (Simple, LL and, where safe, LL128) between each rank and its parent
// and children, laid out as tree_layout.h says. Made by the first call that
// runs the tree, after the ring (ring_connectors.h), whose order numbers the
// tree (tree positions are ring positions) and whose channel count caps the
// tree's. Each rank shares one buffer (peer_memory.h ShareOwnMemory: CUDA IPC,
// or host memory when a tree neighbour's GPU has no peer access to this one,
// or GPURUN_GPU_PATH=host) and maps its tree neighbours' buffers.
//
// LL128 is on only where the ring has it and every rank sees each of its
// tree hops between two GPUs over NVLink through CUDA IPC (the ring's rule,
// for the tree's own hops); otherwise ll128_limit() says why.
#ifndef GPURUN_COLL_GPU_TREE_CONNECTORS_H_
#define GPURUN_COLL_GPU_TREE_CONNECTORS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coll/device/dev_launch.h"
#include "coll/gpu/peer_memory.h"
#include "coll/gpu/ring_connectors.h"
#include "coll/gpu/tree_layout.h"
#include "coll/host/comm_link.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

class TreeConnectors {
 public:
  // The tree's Simple FIFO: at most this (the ring's size when smaller).
  static constexpr uint64_t kMaxSimpleBytes = 1 << 20;

  // Collective over `link` (every rank, with the same ring).
  // `first_step`: where every link's steps start (GPURUN_FIRST_STEP, first_step.h).
  static StatusOr<std::unique_ptr<TreeConnectors>> Create(CommLink& link, int device, const RingConnectors& ring,
                                                          uint64_t first_step = 0);
  ~TreeConnectors();
  TreeConnectors(const TreeConnectors&) = delete;
  TreeConnectors& operator=(const TreeConnectors&) = delete;

  // 2 * nchannels() entries in device memory, [channel * 2 + tree].
  DevTreeLinks* links() const { return links_; }
  int nchannels() const { return nchannels_; }
  uint64_t buffer_bytes() const { return buffer_bytes_; }
  uint64_t ll_buffer_bytes() const { return ll_buffer_bytes_; }
  uint64_t ll128_buffer_bytes() const { return ll128_buffer_bytes_; }
  const std::string& ll128_limit() const { return ll128_limit_; }
  // The communicator ranks this rank is linked with in either tree.
  const std::vector<int>& neighbours() const { return neighbours_; }

 private:
  TreeConnectors() = default;
  StatusOr<PeerPath> ChoosePath(CommLink& link, const RingConnectors& ring, std::vector<std::string>* bus_ids);
  Status AgreeLL128(CommLink& link, const RingConnectors& ring, const std::vector<std::string>& bus_ids,
                    const StatusOr<PeerPath>& path);
  Status Share(CommLink& link, const StatusOr<PeerPath>& path);
  Status StartAt(CommLink& link, uint64_t first_step);
  Status WriteLinks(uint64_t first_step);
  uint64_t LinkBytes() const { return buffer_bytes_ + ll_buffer_bytes_ + ll128_buffer_bytes_; }

  int device_ = -1;
  int nranks_ = 0;
  int position_ = 0;
  int nchannels_ = 0;
  uint64_t buffer_bytes_ = 0;
  uint64_t ll_buffer_bytes_ = 0;
  uint64_t ll128_buffer_bytes_ = 0;
  std::string ll128_limit_;
  std::vector<int> rank_at_;     // ring position -> rank
  std::vector<int> neighbours_;  // ranks, each once
  std::unique_ptr<OwnMemory> mine_;
  std::map<int, std::unique_ptr<PeerMapping>> mapped_;  // by rank
  DevTreeLinks* links_ = nullptr;                       // device memory
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_GPU_TREE_CONNECTORS_H_
