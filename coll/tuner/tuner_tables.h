// The constants of the tuner's cost model for one data path, as data (NCCL
// src/graph/tuning.cc keeps its baseLat / hwLat / bandwidth tables the same
// way; digest §4, nccl_anchor.md §4.5). host_model.h turns them into a
// predicted time; tuner_tables_host.cc holds the values for host buffers on
// shared memory, each with how it was measured.
#ifndef GPURUN_COLL_TUNER_TUNER_TABLES_H_
#define GPURUN_COLL_TUNER_TUNER_TABLES_H_

#include "coll/coll_types.h"

namespace gpurun::coll {

struct TunerTables {
  // Which (function, algorithm) pairs the path implements (NCCL modelMap
  // enabled[]); a protocol is usable wherever its bandwidth below is > 0.
  bool implemented[kNumFuncs][kNumAlgos];

  // Fixed cost of one call (planning, dispatch, completion), microseconds
  // (NCCL baseLat).
  double base_us[kNumAlgos][kNumProtocols];
  // One step on the critical path between two ranks of one host,
  // microseconds (NCCL hwLat): what AlgorithmSteps multiplies.
  double hop_us[kNumAlgos][kNumProtocols];
  // The same between two hosts (a NET edge: the NET proxy's UCX message per
  // step, coll/host/net_proxy.h), per protocol (LL128 has no NET edges: 0).
  double net_hop_us[kNumProtocols];
  // Fixed cost of each peer's point-to-point message of oneshot allgather
  // and broadcast (coll/host/oneshot_messages.h), taken in turn, on top of
  // base and hops: the point-to-point engine's rendezvous (request to send,
  // the receiver's single copy set up, its completion message back),
  // microseconds.
  double message_us;
  // On top of that, each such message to a peer on another host: UCX's
  // rendezvous handshake for a large message (request, then the receiver's
  // go-ahead, before the data), microseconds.
  double net_message_us;
  // Fixed cost of each work (one channel's part of the call on one ring or
  // tree: primitive setup, the first and last step's handshakes), on top of
  // its hops, microseconds.
  double work_us[kNumProtocols];

  // Bandwidth of one side (one rank's send or receive of a byte) between
  // ranks of one host, GB/s (1 GB/s = 1000 bytes per microsecond), per
  // (algorithm, protocol) since chunking differs (ring Simple pipelines 4
  // steps per chunk, the others 1): for functions that only copy (broadcast,
  // allgather) and for those that reduce on the way (reduce, reducescatter,
  // allreduce). NCCL's busBw; host_model.h divides it by the sides per byte.
  double copy_gbps[kNumAlgos][kNumProtocols];
  double reduce_gbps[kNumAlgos][kNumProtocols];
  // Bandwidth of one side of a NET edge, GB/s of data (LL moves twice the
  // bytes: its lines), per (algorithm, protocol) as above. For oneshot it is
  // the NET connectors' (allreduce); twoshot runs as messages only.
  double net_gbps[kNumAlgos][kNumProtocols];
  // The same for oneshot allgather and broadcast, which run as point-to-point
  // messages (coll/host/oneshot_messages.h: UCX sends straight from the
  // user's buffer and the receiver's copy is UCX's only), not over the NET
  // connectors (a copy into the sender's FIFO and one out of the receiver's
  // on top of UCX's).
  double net_message_gbps;
};

// The host shared-memory path (tuner_tables_host.cc).
extern const TunerTables kHostTables;

// Channels the host path can run (GPURUN_NCHANNELS above this is an error;
// coll/planner/planner.h kMaxChannels, which tuner_test checks) and the most
// the automatic choice considers: the host executor runs a call's channels
// one after another in the calling thread, so a channel beyond the first
// only adds its works' latency (host_model.h) and the choice is 1.
inline constexpr int kHostMaxChannels = 16;
inline constexpr int kHostAutoMaxChannels = 1;

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_TUNER_TABLES_H_
