// The host executor's algorithms, one per file (ring_allreduce.cc, ...), each
// running one WorkDesc over the connectors of its group with the primitives
// of protocol P; HostWorkFn (plan_cache.h) picks one by (func, algo, proto). `send` / `recv`
// are the call's whole buffers; the work says which part it moves.
//
// Supported (func, algo): ring for broadcast, reduce, allgather,
// reducescatter and allreduce; tree (double binary tree) for allreduce. Each
// with LL, LL128 and Simple.
#ifndef GPURUN_COLL_HOST_ALGORITHMS_H_
#define GPURUN_COLL_HOST_ALGORITHMS_H_

#include <cstddef>

#include "coll/host/conn_group.h"
#include "coll/host/primitives.h"
#include "coll/planner/work.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// Everything an algorithm needs for one work.
struct WorkArgs {
  const WorkDesc* work;
  const std::byte* send;
  std::byte* recv;
  ConnGroup* group;
  const PrimConfig* config;
};

template <typename P>
Status RingAllReduce(const WorkArgs& args);
template <typename P>
Status RingAllGather(const WorkArgs& args);
template <typename P>
Status RingReduceScatter(const WorkArgs& args);
template <typename P>
Status RingBroadcast(const WorkArgs& args);
template <typename P>
Status RingReduce(const WorkArgs& args);
template <typename P>
Status TreeAllReduce(const WorkArgs& args);
template <typename P>
Status OneShotAllReduce(const WorkArgs& args);

// Instantiates an algorithm for the three protocols (in its own .cc file).
#define GR_INSTANTIATE_HOST_ALGO(name)                    \
  template Status name<ProtoLL>(const WorkArgs& args);    \
  template Status name<ProtoLL128>(const WorkArgs& args); \
  template Status name<ProtoSimple>(const WorkArgs& args)

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_ALGORITHMS_H_
