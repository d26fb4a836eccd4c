// HostCollImpl: the HostColl behind HostColl::Create, with the testing entry
// point Run(call, forced) that runs a call with a given (algorithm, protocol,
// channels) instead of asking the tuner, without environment variables.
//
// Per call, once the connectors of the chosen group exist: no heap
// allocation, no lock, no map lookup (groups are an array indexed by
// algorithm, protocol and channel; works live on the stack). A repeated call
// finds its plan in the PlanCache (plan_cache.h) and skips the tuner and the
// planner. Channels run one after the other in the calling thread, in
// channel order (tree: tree 0 then tree 1 within a channel), the same order
// on every rank.
#ifndef GPURUN_COLL_HOST_HOST_COLL_IMPL_H_
#define GPURUN_COLL_HOST_HOST_COLL_IMPL_H_

#include <array>
#include <memory>
#include <vector>

#include "coll/host/conn_group.h"
#include "coll/host/fifo_sizes.h"
#include "coll/host/host_coll.h"
#include "coll/host/net_proxy.h"
#include "coll/host/plan_cache.h"
#include "coll/planner/planner.h"
#include "coll/tuner/override.h"
#include "coll/tuner/tuner.h"
#include "p2p/backoff.h"
#include "runtime/base/param_table.h"
#include "runtime/base/params.h"

namespace gpurun::coll {

class HostCollImpl final : public HostColl {
 public:
  static StatusOr<std::unique_ptr<HostCollImpl>> CreateImpl(CommLink& link);

  Status Run(const CollCall& call) override { return Run(call, nullptr); }
  // `forced` (may be null: ask the tuner) must name a pair HostAlgoExists
  // accepts, a protocol the communicator's layout allows (no LL128 across
  // hosts) and 1..kMaxChannels channels; else InvalidUsage.
  Status Run(const CollCall& call, const TuneChoice* forced);

 private:
  explicit HostCollImpl(CommLink& link) : link_(link) {}
  StatusOr<TuneChoice> Choose(const CollCall& call, const TuneChoice* forced) const;
  // Plans `call`, makes the groups it needs and runs it; caches the plan in
  // `slot` when it fits.
  Status Execute(const CollCall& call, const TuneChoice& choice, const PlanKey& key, CachedPlan& slot);
  Status RunWorks(const CollCall& call, int nworks, const WorkDesc* works, const WorkFn* fns, ConnGroup* const* groups,
                  const PrimConfig* configs);
  // Oneshot allgather / broadcast (oneshot_messages.h), twoshot allreduce
  // (twoshot_messages.h).
  Status RunMessages(const CollCall& call);
  PrimConfig BaseConfig(const CollCall& call, const TuneChoice& choice) const;
  Status RunSingleRank(const CollCall& call);
  StatusOr<ConnGroup*> Group(Algo algo, Protocol proto, int channel);
  // Whether ring / tree edges to some rank are NET edges (the same on every rank).
  bool HasNet() const { return hosts_ > 1 || all_net_; }

  CommLink& link_;
  CollOverride override_;  // GPURUN_ALGO / GPURUN_PROTO, read once by CreateImpl
  double timeout_s_ = 0;   // GPURUN_TIMEOUT, read once by CreateImpl
  // The communicator's layout as every rank sees it alike (CommLink::HostOf),
  // which the tuner's choice must be: hosts, and the most ranks on one.
  int hosts_ = 1;
  int max_local_ranks_ = 1;
  bool all_net_ = false;     // GPURUN_COLL_NET=always: every ring / tree edge is a NET edge
  uint64_t first_step_ = 0;  // GPURUN_FIRST_STEP: where every connector's steps start
  // GPURUN_SHM_EAGER_LIMIT: the tuner's TuneInput::message_eager_bytes (the same on every rank).
  uint64_t message_eager_bytes_ = 0;
  p2p::Backoff::Policy policy_{};
  std::array<std::unique_ptr<ConnGroup>, ConnGroup::kNumGroups> groups_;
  std::unique_ptr<std::byte[]> scratch_;    // 3 steps: two receive peers and one send
  std::vector<std::byte> message_scratch_;  // twoshot's peers' blocks, grown on demand
  PlanCache plans_;
  CachedParam<int64_t> nchannels_{params::kNChannels};  // GPURUN_NCHANNELS, read per call (tests change it)
  Status broken_;                                       // the first failure after traffic started (Run)
  // Moves the NET edges; made with the first group that has them, destroyed
  // first (its thread stops before the groups go).
  std::unique_ptr<NetProxy> proxy_;
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_HOST_COLL_IMPL_H_
