// Two pure hints for building rings on one node: how many ring channels a
// GPU pair's link supports, and in which order ranks should follow each other
// so that ring neighbours are close on the PCI tree. No I/O, no CUDA.
#ifndef GPURUN_TOPO_RING_HINTS_H_
#define GPURUN_TOPO_RING_HINTS_H_

#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace gpurun::topo {

// Most ring channels SuggestRingChannels ever returns (NCCL in the same log,
// line 607, opens 32 p2p channels on H200).
inline constexpr int kMaxRingChannels = 32;

// Ring channels for a ring whose narrowest hop is `nvlinks_between_pair`
// NVLinks (0 or kUnknown: PCIe only), on GPUs with `sm_count` SMs (0 or less:
// not known). From this table (first column: at least this many links):
//
//   links  channels  source
//   <= 0      2      PCIe only: gpurun's choice after NCCL's usual PCIe rings; not measured
//      1      2      scaled: 4 channels per 3 links, rounded up to even, at least 2
//      2      4      scaled
//      4      6      scaled
//      6      8      scaled
//      8     12      scaled
//     12     16      scaled
//     18     24      measured: NCCL 2.28.9 on 2x H200 NV18, /work/shared/reference/
//                    nccl_h200x2_logs.txt line 607 "24 coll channels"
//     24     32      scaled
//
// then capped at kMaxRingChannels and at a quarter of the SMs (each channel
// runs one CTA on its own SM while the collective runs; NCCL's 24 on H200's
// 132 SMs is 18%, so the cap leaves H200 alone and only trims small GPUs),
// and at least 1. Only the 18-link and PCIe rows come from measurements or
// NCCL; the rows between are a linear guess to be replaced by measurements.
// Non-decreasing in `nvlinks_between_pair`.
int SuggestRingChannels(int nvlinks_between_pair, int sm_count);

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

// The ring order that GPURUN_GPU_RING's `setting` asks for: "" or "pci",
// RingOrder above; "rank", rank order; a comma-separated permutation of
// 0..N-1 ("0,2,1,3"), that order for communicators of N ranks (and
// RingOrder for communicators of another size). InvalidArgument naming the
// setting for anything else.
StatusOr<std::vector<int>> RingOrderFor(const std::string& setting, const std::vector<std::string>& bus_id_per_rank);

}  // namespace gpurun::topo

#endif  // GPURUN_TOPO_RING_HINTS_H_
