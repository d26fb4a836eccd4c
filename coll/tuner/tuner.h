// The tuner: for one collective call, the (algorithm, protocol, channels)
// with the least predicted time, time = latency + bytes / bandwidth per
// (function, algorithm, protocol), over tables for each data path
// (tuner_tables_host.cc for host buffers on shared memory; each constant says
// how it was measured). GPURUN_ALGO / GPURUN_PROTO (override.h) filter the
// candidates, never enable them; GPURUN_NCHANNELS forces the channel count.
// Every choice is logged at INFO under GPURUN_DEBUG_SUBSYS=TUNING.
#ifndef GPURUN_COLL_TUNER_TUNER_H_
#define GPURUN_COLL_TUNER_TUNER_H_

#include <cstdint>

#include "coll/coll_types.h"
#include "coll/tuner/override.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

struct TuneInput {
  Func func = Func::kAllReduce;
  // NCCL's nBytes: count * element size of the whole operation (AllGather:
  // the gathered output; ReduceScatter: the input).
  uint64_t bytes = 0;
  int nranks = 1;
  int nnodes = 1;       // hosts the communicator spans
  int local_ranks = 1;  // ranks of the communicator on this host
  // The largest message the point-to-point engine copies twice on one host
  // (GPURUN_SHM_EAGER_LIMIT: a message of at most that many bytes goes in an
  // eager cell, copied in and out; larger ones go by rendezvous and
  // process_vm_readv, copied once). Oneshot allgather / broadcast and twoshot
  // allreduce, which move each block as one message, are taken automatically
  // only for blocks larger than this: up to it every block is copied twice,
  // as the ring's steps are, and on top each peer's message costs the
  // engine's handling in turn (measured with 2 ranks only, tuner_tables_host.cc
  // D and F; with more ranks the model's per-message cost is a guess). A
  // restriction that leaves only them still gets them.
  uint64_t message_eager_bytes = 16384;
  // The same across hosts (nnodes > 1), where the larger of the two
  // applies: the UCX wire's eager size (p2p/ucx/ucx_wire.h
  // kUcxWireEagerBytes; HostColl checks they agree; UCX's rendezvous starts
  // one byte above it), above which UCX sends the user's buffer itself. Up
  // to it every message is copied into UCX's buffers, and the ring's
  // pipelined NET steps were measured as fast or faster (tuner_tables_host.cc
  // E2).
  uint64_t net_message_eager_bytes = 131072;
  // GPURUN_COLL_NET=always: every ring / tree edge is put on NET to test that
  // path on one host (nnodes is then the rank count). The message algorithms
  // have no edges (their messages take shared memory there), so the model's
  // NET terms would be wrong for them: they compete only when a restriction
  // leaves nothing else.
  bool all_net = false;
};

struct TuneChoice {
  Algo algo = Algo::kRing;
  Protocol proto = Protocol::kSimple;
  int nchannels = 1;
  double predicted_us = 0;  // the model's time for the call
};

// The host path's choice. InvalidUsage, naming the variable, its value and
// the collective, when the override leaves no supported pair.
StatusOr<TuneChoice> ChooseHost(const TuneInput& input, const CollOverride& override_masks);

// The model's time for one candidate on the host path; a negative value when
// the host path has no such (function, algorithm, protocol) implementation.
double PredictHostUs(const TuneInput& input, Algo algo, Protocol proto, int nchannels);

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_TUNER_H_
