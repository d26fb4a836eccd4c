// ConnGroup: the connectors of one (algorithm, protocol, channel) for one
// rank, made collectively on the first call that needs them.
//
//   ring   receive from the ring's prev, send to its next (ring order =
//          rank order);
//   tree   for each of the two trees of the double binary tree, a receive
//          and a send connector to the parent and to each child;
//   oneshot a receive and a send connector to every other rank (all pairs,
//          on shared memory within a host and on NET between hosts). Its
//          n - 1 FIFOs per rank exist only in one-shot groups, which are
//          made only when a call runs oneshot.
//
// Same-host edges: each rank creates one segment holding a FIFO (FifoHeader
// + buffer) for every edge INTO it, at a region index both ends compute
// (ring: 0; tree t: 3t for the parent, 3t + 1 + j for child j); the senders
// map it, and the owner unlinks it as soon as all have (two AllGathers that
// also agree on success, so a failure anywhere fails every rank alike).
// NET edges (other hosts, or all with all_net) get a NetFifo of the proxy on
// each side (net_proxy.h), named by NetProxy::EdgeId(group, edge, sender)
// (edge: ring and oneshot 0; tree t, up 1 + 2t, down 2 + 2t); LL128 groups with a NET
// edge are refused (InvalidUsage on every rank, kLL128NetReason).
//
// Segment names: "/gpurun-" + UniqueName() + a 12-digit number encoding
// (group, rank). Oneshot: the FIFO from sender s sits at region
// OneShotRegion(s, receiver) of the receiver's n - 1. With UniqueName() = "<nspace>-<digits>" (runtime's
// coll_link) the name is "/gpurun-<nspace>-<digits>", which
// p2p::RemoveShmSegments(nspace) removes after a crash, and it never equals a
// p2p wire segment "/gpurun-<nspace>-<rank>" (12+ digits against <= 10).
#ifndef GPURUN_COLL_HOST_CONN_GROUP_H_
#define GPURUN_COLL_HOST_CONN_GROUP_H_

#include <memory>
#include <string>
#include <vector>

#include "coll/coll_types.h"
#include "coll/host/comm_link.h"
#include "coll/host/connector.h"
#include "coll/patterns/double_binary_tree.h"
#include "coll/planner/planner.h"
#include "p2p/shm/shm_segment.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Connectors of one tree: index 0 the parent, 1 + j child j.
struct TreeConns {
  TreeLinks links;
  RecvConn recv[1 + kTreeMaxChildren];
  SendConn send[1 + kTreeMaxChildren];
};

class ConnGroup {
 public:
  // Collective over the link's ranks; every rank passes the same arguments.
  // `proxy` moves the NET edges (null: there must be none); `all_net` makes
  // every ring / tree edge a NET edge (GPURUN_COLL_NET=always).
  // Every edge's step count starts at `first_step` (GPURUN_FIRST_STEP; LL
  // FIFOs then start as coll/ll_start.h says).
  static StatusOr<std::unique_ptr<ConnGroup>> Create(CommLink& link, Algo algo, Protocol proto, int channel,
                                                     NetProxy* proxy, bool all_net, uint64_t first_step = 0);

  // The segment name of `rank`'s FIFOs for group number `group`.
  static std::string SegmentName(const std::string& unique_name, int group, int rank);
  // Algorithms with connector groups: ring, tree, oneshot.
  static constexpr int kNumGroupAlgos = 3;
  static constexpr int kNumGroups = kNumGroupAlgos * kNumProtocols * kMaxChannels;
  // The group's number (0 .. kNumGroups - 1); ring, tree and oneshot only.
  static int GroupIndex(Algo algo, Protocol proto, int channel);
  // Region of the FIFO from `sender` in `receiver`'s one-shot segment.
  static int OneShotRegion(int sender, int receiver) { return sender < receiver ? sender : sender - 1; }

  ConnGroup(const ConnGroup&) = delete;
  ConnGroup& operator=(const ConnGroup&) = delete;

  Algo algo() const { return algo_; }
  Protocol proto() const { return proto_; }
  RecvConn ring_recv;
  SendConn ring_send;
  TreeConns tree[kNumDoubleTrees];
  // Oneshot: indexed by peer rank (this rank's own entries unused).
  std::vector<RecvConn> peer_recv;
  std::vector<SendConn> peer_send;

 private:
  ConnGroup(Algo algo, Protocol proto) : algo_(algo), proto_(proto) {}
  Status Setup(CommLink& link, int channel, NetProxy* proxy, bool all_net, uint64_t first_step);

  Algo algo_;
  Protocol proto_;
  p2p::shm::ShmSegment own_;                 // FIFOs of the edges into this rank
  std::vector<p2p::shm::ShmSegment> peers_;  // receivers' segments this rank sends into
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_CONN_GROUP_H_
