// Two pure hints for building rings on one node: how many channels a GPU
// ring uses, and in which order ranks should follow each other
// so that ring neighbours are close on the PCI tree. No I/O, no CUDA.
#ifndef GPURUN_TOPO_RING_HINTS_H_
#define GPURUN_TOPO_RING_HINTS_H_

#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "topo/gpu_info.h"

namespace gpurun::topo {

// What the channel count of a GPU ring depends on, as every rank of it sees
// the same ring (GpuRingChannels below).
struct GpuRingShape {
  // NVLinks of the ring's narrowest hop between two different GPUs (0: a
  // hop over PCIe only); kUnknown when NVML could not say; kNoGpuHop when
  // every hop stays on one GPU (all ranks share it).
  int narrowest_nvlinks = kUnknown;
  int ranks_per_gpu = 1;   // the most ranks any one GPU of the ring carries
  bool host_path = false;  // some hop goes through host memory (no peer access)
  int sm_count = 0;        // SMs of the GPU; 0 or less: not known
};
inline constexpr int kNoGpuHop = 1 << 20;

// Most channels GpuRingChannels returns: the GPU executor's limit
// (coll/device kMaxDeviceChannels).
inline constexpr int kMaxGpuRingChannels = 128;

// Channels (thread blocks of the ring kernels, one FIFO each) a GPU ring of
// gpurun's Simple kernels uses by default. gpurun's kernel moves less per
// block than NCCL's, so it needs more blocks than NCCL's 24 on the same link
// (coll/gpu/gpu_coll.h has the sweep). The table, by the narrowest hop:
//
//   hop                channels  source
//   >= 18 NVLinks        128     measured: 2x H200 NV18, the sweep in gpu_coll.h
//   1..17 NVLinks        128 x links / 18, rounded up to a multiple of 8,
//                                at least the PCIe row: a guess by link
//                                bandwidth, not measured
//   no NVLink (0)         32     as the host path below (a PCIe P2P hop is
//                                on no machine we have; not measured)
//   host memory           32     measured: 2x H200, GPURUN_GPU_PATH=host,
//                                allreduce 16 MiB..1 GiB busbw with 8 / 16 /
//                                32 / 64 / 128 channels 21.6 / 27.3 / 31.6 /
//                                30.4 / 31.6 GB/s at 1 GiB (NCCL with
//                                NCCL_P2P_DISABLE=1 in the same jobs: 27.0)
//   unknown (no NVML)    128     the NVLink row: peer access without NVML
//                                is most often an NVLink machine
//   one GPU only         128     the GPU's own memory, as NVLink
//
// then divided by ranks_per_gpu (the ranks sharing a GPU share its SMs;
// measured on 2x H200 with 4 ranks), capped at the SM count, at least 8
// (or 1 when the SMs are fewer).
int GpuRingChannels(const GpuRingShape& shape);

// The order in which ranks of one node should sit on a ring, from each rank's
// GPU PCI bus id (bus_id_per_rank[r] for rank r; any spelling pci_bus_id.h
// parses). Returns a permutation of 0..n-1: result[k] is the rank at ring
// position k, and the ring closes from result[n-1] back to result[0].
//
//  - Ranks are sorted by PCI address (domain, bus, device, function), so
//    ranks sharing a GPU are consecutive and GPUs with adjacent PCI ids (the
//    same switch, usually) neighbour each other; ties keep rank order.
//  - Ids that do not parse (a rank without a GPU: "") come after all GPUs,
//    grouped by equal text, then by rank.
//  - The sorted ring is rotated to start at rank 0 (the same ring; its first
//    position is then fixed). Rank 0 leads its group, so groups stay
//    consecutive. Ranks already in PCI order give the identity.
//
// The ids are compared as they are: give it the ranks of one node (the same
// bus id on two hosts is two GPUs).
std::vector<int> RingOrder(const std::vector<std::string>& bus_id_per_rank);

// RingOrder for ranks on several hosts (host_per_rank[r]: rank r's host
// number): each host's ranks consecutive, in RingOrder among themselves,
// hosts in the order of their lowest rank, so the ring crosses between
// hosts once per host. With one host, RingOrder.
std::vector<int> RingOrderAcrossHosts(const std::vector<int>& host_per_rank,
                                      const std::vector<std::string>& bus_id_per_rank);

// The ring order that GPURUN_GPU_RING's `setting` asks for: "" or "pci",
// RingOrderAcrossHosts above; "rank", rank order; a comma-separated
// permutation of 0..N-1 ("0,2,1,3"), that order for communicators of N
// ranks (and RingOrderAcrossHosts for communicators of another size).
// InvalidArgument naming the setting for anything else.
StatusOr<std::vector<int>> RingOrderFor(const std::string& setting, const std::vector<int>& host_per_rank,
                                        const std::vector<std::string>& bus_id_per_rank);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_RING_HINTS_H_
