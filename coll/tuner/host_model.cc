// The host cost model (see host_model.h).
#include "coll/tuner/host_model.h"

#include <algorithm>

#include "coll/patterns/double_binary_tree.h"
#include "coll/patterns/step_counts.h"
#include "coll/planner/planner.h"

namespace gpurun::coll {
namespace {

// Node of `rank` when ranks fill nodes in blocks of `local_ranks`.
int NodeOf(int rank, int local_ranks) { return rank / std::max(local_ranks, 1); }

// Ring: transfers on the critical path that cross nodes (NCCL nInterSteps).
int RingInterSteps(Func func, int nnodes) {
  if (nnodes <= 1) return 0;
  return func == Func::kAllReduce ? 2 * (nnodes - 1) : nnodes - 1;
}

double RingSides(Func func, int nranks) {
  const double n = nranks;
  switch (func) {
    case Func::kAllReduce: return 4 * (n - 1) / n;
    case Func::kAllGather:
    case Func::kReduceScatter: return 2 * (n - 1) / n;
    case Func::kBroadcast:
    case Func::kReduce: return nranks == 2 ? 1 : 2;
  }
  return 0;
}

// Oneshot allgather / broadcast as point-to-point messages: every rank takes
// each of its n - 1 peers' blocks (allgather) or the root's buffer
// (broadcast) as one message, in turn: per peer the message's fixed cost and
// a hop (a NET hop for a peer on another node, and the NET message's own
// fixed cost). Sides on one host: 1,
// since the receiver copies each byte once straight from the sender's memory
// and the sender copies nothing (allgather: (n-1)/n of the output read, 1/n
// its own block copied). A NET peer also costs its sender a side: 1/n of the
// output per NET peer for allgather (and its receive is a NET side), the
// whole buffer per NET peer at the broadcast's root (counted on top of a
// receiver's side: a bound). NET sides at the NET bandwidth, the rest at
// side_bw.
//
// Twoshot allreduce is two such rounds of blocks (1/n of the call each), a
// reduce-scatter then an all-gather: per round a local peer costs the
// receiver a side of 1/n, a NET peer a send and a receive of 1/n; two
// messages' fixed costs and two hops per peer. Its side_bw is reduce_gbps
// (the first round's receiver also reduces).
void MessageCost(const TunerTables& tables, const HostShape& shape, Func func, Algo algo, double side_bw,
                 HostCost* cost, double* path_us) {
  const int local = (shape.nnodes > 1 ? std::min(shape.local_ranks, shape.nranks) : shape.nranks) - 1;
  const int net = shape.nranks - 1 - local;
  const int a = static_cast<int>(algo), p = static_cast<int>(Protocol::kSimple);
  const int rounds = algo == Algo::kTwoShot ? 2 : 1;
  cost->latency_us += rounds * ((shape.nranks - 1) * tables.message_us + net * tables.net_message_us);
  *path_us = rounds * (net * tables.net_hop_us[p] + local * tables.hop_us[a][p]);
  double net_sides = 0, local_sides = 0;
  if (algo == Algo::kTwoShot) {
    net_sides = 4.0 * net / shape.nranks;
    local_sides = 2.0 * local / shape.nranks;
  } else {
    net_sides = func == Func::kAllGather ? 2.0 * net / shape.nranks : net;
    local_sides = 1.0 - (func == Func::kAllGather ? 1.0 * net / shape.nranks : 0.0);
  }
  cost->sides = net_sides + local_sides;
  if (net > 0) {
    const double net_bw = std::min(side_bw, algo == Algo::kOneShot ? tables.net_message_gbps : tables.net_gbps[a][p]);
    cost->side_gbps = cost->sides / (net_sides / net_bw + local_sides / side_bw);
  }
}

}  // namespace

bool HostReduces(Func func) {
  return func == Func::kReduce || func == Func::kReduceScatter || func == Func::kAllReduce;
}

HostShape MakeHostShape(int nranks, int nnodes, int local_ranks) {
  HostShape shape;
  shape.nranks = nranks;
  shape.nnodes = std::max(nnodes, 1);
  shape.local_ranks = std::max(local_ranks, 1);
  if (nranks <= 1) return shape;
  const int node_ranks = shape.nnodes > 1 ? shape.local_ranks : nranks;
  double sides_sum = 0;
  for (int tree = 0; tree < kNumDoubleTrees; ++tree) {
    int& best_intra = shape.tree_intra_hops[tree];
    int& best_inter = shape.tree_inter_hops[tree];
    int max_sides = 0;
    for (int r = 0; r < nranks; ++r) {
      int intra = 0, inter = 0;
      for (int x = r, hops = 0; hops <= nranks; ++hops) {
        const int parent = DoubleTreeLinks(nranks, x, tree).parent;
        if (parent < 0) break;
        (NodeOf(x, node_ranks) == NodeOf(parent, node_ranks) ? intra : inter) += 1;
        x = parent;
      }
      if (inter > best_inter || (inter == best_inter && intra > best_intra)) {
        best_inter = inter;
        best_intra = intra;
      }
      const TreeLinks links = DoubleTreeLinks(nranks, r, tree);
      max_sides = std::max(max_sides, links.NumChildren() + (links.IsRoot() ? 0 : 1));
    }
    sides_sum += max_sides;
  }
  shape.tree_sides = sides_sum / kNumDoubleTrees;
  return shape;
}

HostCost HostCostOf(const TunerTables& tables, const HostShape& shape, Func func, Algo algo, Protocol proto,
                    int nchannels) {
  HostCost cost;
  const int f = static_cast<int>(func), a = static_cast<int>(algo), p = static_cast<int>(proto);
  const double side_bw = HostReduces(func) ? tables.reduce_gbps[a][p] : tables.copy_gbps[a][p];
  if (!tables.implemented[f][a] || side_bw <= 0 || nchannels < 1 || nchannels > kHostMaxChannels) return cost;
  if (proto == Protocol::kLL128 && shape.nnodes > 1) return cost;  // no NET edges (kHostLL128NetReason)
  cost.implemented = true;
  const bool tree = algo == Algo::kTree;
  const int works = nchannels * (tree ? kNumDoubleTrees : 1);
  cost.latency_us = tables.base_us[a][p] + works * tables.work_us[p];
  cost.side_gbps = side_bw;
  if (shape.nnodes > 1) {
    // With one rank per node every side is a NET side; otherwise the busiest
    // rank (a node's first or last in the ring, a tree link between nodes) has
    // about one NET side per side within its node.
    const double net = std::min(side_bw, tables.net_gbps[a][p]);
    cost.side_gbps = shape.local_ranks <= 1 ? net : 2 / (1 / side_bw + 1 / net);
  }
  if (shape.nranks <= 1) return cost;

  double path_us = 0;  // the hops of one channel's works
  if (tree) {
    const int passes = AlgorithmSteps(func, algo, shape.nranks, 1);  // 1 per tree pass: 2 for allreduce
    for (int t = 0; t < kNumDoubleTrees; ++t) {
      path_us +=
          passes * (shape.tree_intra_hops[t] * tables.hop_us[a][p] + shape.tree_inter_hops[t] * tables.net_hop_us[p]);
    }
    cost.sides = passes * shape.tree_sides;
  } else if (HostRunsAsMessages(func, algo)) {
    if (nchannels != 1) return HostCost{};  // one channel only (oneshot_messages.h)
    MessageCost(tables, shape, func, algo, side_bw, &cost, &path_us);
  } else if (algo == Algo::kOneShot) {
    // Peers on other nodes (NET) and on this one: a NET hop per NET peer, in
    // turn (the proxy sends and receives their messages one after another),
    // and a hop per local peer. Not one NET side per local side either.
    const int local = (shape.nnodes > 1 ? std::min(shape.local_ranks, shape.nranks) : shape.nranks) - 1;
    const int net = shape.nranks - 1 - local;
    path_us = net * tables.net_hop_us[p] + local * tables.hop_us[a][p];
    cost.sides = 2.0 * (shape.nranks - 1);
    if (net > 0) {
      cost.side_gbps = (shape.nranks - 1) / (net / std::min(side_bw, tables.net_gbps[a][p]) + local / side_bw);
    }
  } else {
    const int steps = AlgorithmSteps(func, algo, shape.nranks);
    const int inter = std::min(steps, RingInterSteps(func, shape.nnodes));
    path_us = (steps - inter) * tables.hop_us[a][p] + inter * tables.net_hop_us[p];
    cost.sides = RingSides(func, shape.nranks);
  }
  cost.latency_us += nchannels * path_us;
  return cost;
}

double PredictHost(const TunerTables& tables, const HostShape& shape, Func func, Algo algo, Protocol proto,
                   int nchannels, uint64_t bytes) {
  const HostCost cost = HostCostOf(tables, shape, func, algo, proto, nchannels);
  if (!cost.implemented) return -1;
  if (cost.sides == 0) return cost.latency_us;
  return cost.latency_us + static_cast<double>(bytes) * cost.sides / (1000 * cost.side_gbps);
}

}  // namespace gpurun::coll
