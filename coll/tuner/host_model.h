// The host path's cost model: time = latency + bytes * sides / bandwidth,
// NCCL's formula (digest §4, nccl_anchor.md §4.5) recast for the host
// executor, where each rank is one thread that does every copy of its sends
// and receives, and runs the call's works (one per channel; per channel one
// per tree of the double binary tree for tree) one after another
// (coll/host/host_coll.cc, coll/planner/planner.cc).
//
//   latency = base[a][p] + works * work[p] + sum over works of the work's path
//   a work's path = intra_hops * hop[a][p] + inter_hops * net_hop
//   ring:  hops = AlgorithmSteps(func, ring, n) (step_counts.h); across nodes
//          NCCL's nInterSteps of them are NET hops: 2(nodes-1) for
//          allreduce, nodes-1 otherwise. One work per channel.
//   tree:  per tree, its deepest rank-to-root path (double_binary_tree.h),
//          once for reduce or broadcast, twice for allreduce (up, then down);
//          with ranks on nodes in blocks of local_ranks its hops between
//          nodes are NET hops. Two works per channel, one per tree.
//   oneshot (allreduce): each rank sends its input to every peer, then
//          receives and reduces theirs in turn: n - 1 hops (the receives,
//          one cache-line transfer each, in sequence); across nodes a NET
//          hop for each peer on another node (in turn: one proxy sends and
//          receives them) and a hop for each on this one.
//   oneshot (allgather, broadcast) and twoshot (allreduce) as point-to-point
//          messages (HostRunsAsMessages): per peer a message's fixed cost
//          and a hop, twice for twoshot (host_model.cc MessageCost).
//
//   bandwidth part = bytes * sides / (1000 * side_bw) microseconds, where
//   `sides` is NCCL's busBw -> algBw ratio in host terms: the bytes the
//   busiest rank's thread sends plus receives, per byte of the call (bytes is
//   NCCL's nBytes: the whole gathered output of an allgather, the whole input
//   of a reducescatter). Channels split the data, so they do not change it.
//     ring allreduce 4(n-1)/n; ring allgather / reducescatter 2(n-1)/n;
//     ring broadcast / reduce (a chain): 2, or 1 with two ranks;
//     tree: each tree carries half the data in turn, its busiest rank
//     moving (children + has parent) sides per pass: the mean over the two
//     trees of that maximum, times 2 passes for allreduce;
//     oneshot 2(n-1): the whole input to and from every peer.
//   side_bw = copy or reduce bandwidth of the protocol (tuner_tables.h);
//   across nodes the NET bandwidth (net_gbps; oneshot allgather and
//   broadcast, as messages: net_message_gbps) with one rank per node, else
//   the harmonic mean of the two (the busiest rank has one NET side per
//   local side);
//   oneshot across nodes: the harmonic mean weighted by its peers on other
//   nodes (NET) and on its own (local_ranks - 1).
//
// One rank: no hops and no sides, the time is the base cost.
#ifndef GPURUN_COLL_TUNER_HOST_MODEL_H_
#define GPURUN_COLL_TUNER_HOST_MODEL_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/tuner/tuner_tables.h"

namespace gpurun::coll {

// LL128 has no NET edges (coll/host/net_proxy.h): the model leaves it out
// across nodes, and a forced ll128 there is an error giving this reason.
inline constexpr const char* kHostLL128NetReason =
    "LL128's readiness is a flag per 128-byte line, which needs each line to land whole and in order; the NET "
    "proxy's messages do not promise that, so LL128 is off on NET edges (use ll or simple across hosts)";

// What the model needs to know about a communicator's shape, computed once
// per (nranks, nnodes, local_ranks): O(n log n) for the tree walks.
struct HostShape {
  int nranks = 0;
  int nnodes = 0;
  int local_ranks = 0;
  // Per tree, the deepest path to its root: hops within a node and between
  // nodes (the path with the most NET hops, then the most hops).
  int tree_intra_hops[2] = {0, 0};
  int tree_inter_hops[2] = {0, 0};
  // Sides per byte of one tree pass (reduce up or broadcast down) over both
  // trees, each carrying half the data after the other.
  double tree_sides = 0;
};

HostShape MakeHostShape(int nranks, int nnodes, int local_ranks);

// Whether `func` reduces on the way (its sides move at reduce_gbps, else copy_gbps).
bool HostReduces(Func func);

// The model's time in microseconds; negative when `tables` do not implement
// (func, algo) or `proto` for it, or nchannels is outside 1..kHostMaxChannels.
double PredictHost(const TunerTables& tables, const HostShape& shape, Func func, Algo algo, Protocol proto,
                   int nchannels, uint64_t bytes);

// The parts of that time, for gpurun-tune and logs.
struct HostCost {
  double latency_us = 0;
  double sides = 0;      // per byte, on the busiest rank
  double side_gbps = 0;  // bandwidth of one side
  bool implemented = false;
};
HostCost HostCostOf(const TunerTables& tables, const HostShape& shape, Func func, Algo algo, Protocol proto,
                    int nchannels);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_HOST_MODEL_H_
