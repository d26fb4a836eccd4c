// HostColl::Create and Run (host_coll.h, host_coll_impl.h): choice, plan,
// lazy connector groups, then each work in the calling thread.
#include <algorithm>
#include <cstring>
#include <map>
#include <string>

#include "coll/host/algorithms.h"
#include "coll/host/host_coll_impl.h"
#include "coll/host/oneshot_messages.h"
#include "coll/host/reduce.h"
#include "coll/host/twoshot_messages.h"
#include "coll/tuner/tuner_tables.h"
#include "p2p/ucx/ucx_wire.h"
#include "runtime/base/param_table.h"

namespace gpurun::coll {
namespace {

// The tuner may pick any channel count its tables allow; groups exist for each.
static_assert(kHostMaxChannels <= kMaxChannels);
// The tuner's default is the UCX wire's rendezvous size (tuner.h).
static_assert(TuneInput{}.net_message_eager_bytes == p2p::kUcxWireEagerBytes);

// Bytes of the output buffer (and of the input, but for allgather /
// reducescatter) of `call` on `nranks` ranks.
uint64_t OutputBytes(const CollCall& call, int nranks) {
  const uint64_t bytes = call.count * static_cast<uint64_t>(ElemSize(call.type));
  return call.func == Func::kAllGather ? bytes * static_cast<uint64_t>(nranks) : bytes;
}

}  // namespace

StatusOr<std::unique_ptr<HostColl>> HostColl::Create(CommLink& link) {
  GR_ASSIGN_OR_RETURN(std::unique_ptr<HostCollImpl> impl, HostCollImpl::CreateImpl(link));
  return std::unique_ptr<HostColl>(std::move(impl));
}

StatusOr<std::unique_ptr<HostCollImpl>> HostCollImpl::CreateImpl(CommLink& link) {
  std::unique_ptr<HostCollImpl> impl(new HostCollImpl(link));
  GR_ASSIGN_OR_RETURN(impl->override_, LoadCollOverride());
  impl->timeout_s_ = params::kTimeout.Get();
  std::map<int, int> ranks_per_host;
  for (int r = 0; r < link.size(); ++r) ++ranks_per_host[link.HostOf(r)];
  impl->hosts_ = static_cast<int>(ranks_per_host.size());
  for (const auto& [host, ranks] : ranks_per_host) impl->max_local_ranks_ = std::max(impl->max_local_ranks_, ranks);
  impl->policy_ = p2p::Backoff::ForWait(p2p::Backoff::PolicyFromParams(), 0, link.SharesCores());
  impl->all_net_ = params::kCollNet.Get() == params::kCollNetAlways && link.size() > 1;
  impl->first_step_ = static_cast<uint64_t>(params::kFirstStep.Get());
  impl->message_eager_bytes_ = static_cast<uint64_t>(params::kShmEagerLimit.Get());
  impl->scratch_ = std::make_unique<std::byte[]>(3 * kHostMaxStepDataBytes);
  return impl;
}

Status HostCollImpl::RunSingleRank(const CollCall& call) {
  if (call.send != call.recv) std::memcpy(call.recv, call.send, OutputBytes(call, 1));
  return OkStatus();
}

StatusOr<ConnGroup*> HostCollImpl::Group(Algo algo, Protocol proto, int channel) {
  std::unique_ptr<ConnGroup>& slot = groups_[static_cast<size_t>(ConnGroup::GroupIndex(algo, proto, channel))];
  if (!slot) {
    // Collective like the group: every rank gets here alike (HasNet is the same everywhere).
    if (!proxy_ && HasNet()) {
      GR_ASSIGN_OR_RETURN(proxy_, NetProxy::Create(link_, timeout_s_, policy_));
    }
    GR_ASSIGN_OR_RETURN(slot, ConnGroup::Create(link_, algo, proto, channel, proxy_.get(), all_net_, first_step_));
  }
  return slot.get();
}

StatusOr<TuneChoice> HostCollImpl::Choose(const CollCall& call, const TuneChoice* forced) const {
  const int nranks = link_.size();
  if (forced != nullptr) {
    if (!HostAlgoExists(call.func, forced->algo)) {
      return InvalidUsage(std::string("forced algorithm ") + AlgoName(forced->algo) + " does not exist for " +
                          FuncName(call.func) + " on host buffers");
    }
    if (forced->proto == Protocol::kLL128 && HasNet()) {
      return InvalidUsage(std::string("forced protocol ll128 for ") + FuncName(call.func) + " on a communicator with " +
                          (all_net_ ? "every edge on NET (GPURUN_COLL_NET=always)" : "ranks on several hosts") + ": " +
                          kLL128NetReason);
    }
    if (HostRunsAsMessages(call.func, forced->algo) && (forced->proto != Protocol::kSimple || forced->nchannels != 1)) {
      return InvalidUsage(std::string("forced ") + AlgoName(forced->algo) + " " + FuncName(call.func) +
                          " with protocol " + ProtocolName(forced->proto) + " and " +
                          std::to_string(forced->nchannels) +
                          " channel(s): it moves each block as one point-to-point message (single copy on one "
                          "host), so it has protocol simple and one channel only");
    }
    if (forced->nchannels < 1 || forced->nchannels > kMaxChannels) {
      return InvalidUsage("forced channel count " + std::to_string(forced->nchannels) + " is outside 1.." +
                          std::to_string(kMaxChannels));
    }
    return *forced;
  }
  TuneInput in;
  in.func = call.func;
  in.bytes = OutputBytes(call, nranks);
  if (call.func == Func::kReduceScatter) in.bytes *= static_cast<uint64_t>(nranks);
  in.nranks = nranks;
  // The layout every rank sees alike: with this host's own count, ranks on
  // hosts holding different numbers of ranks chose differently and hung.
  in.local_ranks = all_net_ ? 1 : max_local_ranks_;
  in.nnodes = all_net_ ? nranks : hosts_;
  in.message_eager_bytes = message_eager_bytes_;
  in.all_net = all_net_;
  return ChooseHost(in, override_);
}

// The choice is made (and a restriction that leaves nothing is reported)
// before count 0 and one rank return, so a forced choice is checked the same
// way for every count. A call that fails once traffic started leaves the
// connectors' step counters out of step between ranks: later calls fail with
// the first failure instead of exchanging garbage. A cached plan was checked
// when it was made; its choice inputs are its key.
Status HostCollImpl::Run(const CollCall& call, const TuneChoice* forced) {
  if (!broken_.ok()) [[unlikely]] {
    return Status(broken_.code(),
                  "an earlier collective on this communicator failed, so its connectors are out "
                  "of step; create a new communicator. The failure: " +
                      broken_.message());
  }
  const PlanKey key = PlanCache::KeyOf(call, forced, forced == nullptr ? nchannels_.Get() : 0);
  CachedPlan& slot = plans_.SlotFor(key);
  if (slot.valid && slot.key == key) [[likely]] {
    Status status = slot.messages ? RunMessages(call)
                                  : RunWorks(call, slot.nworks, slot.works, slot.fns, slot.groups, slot.configs);
    if (!status.ok()) [[unlikely]]
      broken_ = status;
    return status;
  }
  GR_ASSIGN_OR_RETURN(const TuneChoice choice, Choose(call, forced));
  if (call.count == 0) return OkStatus();
  if (link_.size() == 1) return RunSingleRank(call);
  Status status;
  if (HostRunsAsMessages(call.func, choice.algo)) {
    slot.valid = true;
    slot.messages = true;
    slot.key = key;
    slot.nworks = 0;
    status = RunMessages(call);
  } else {
    status = Execute(call, choice, key, slot);
  }
  if (!status.ok()) broken_ = status;
  return status;
}

PrimConfig HostCollImpl::BaseConfig(const CollCall& call, const TuneChoice& choice) const {
  PrimConfig cfg;
  cfg.site.link = &link_;
  cfg.site.func = call.func;
  cfg.site.algo = choice.algo;
  cfg.site.proto = choice.proto;
  cfg.site.timeout_s = timeout_s_;
  cfg.site.policy = policy_;
  cfg.reduce = ReduceFnFor(call.type, call.op);
  cfg.divide = DivideFnFor(call.type);
  cfg.divisor = static_cast<uint64_t>(link_.size());
  cfg.elem_size = ElemSize(call.type);
  cfg.buffer_bytes = HostBufferBytes(choice.proto);
  cfg.recv_scratch[0] = scratch_.get();
  cfg.recv_scratch[1] = scratch_.get() + kHostMaxStepDataBytes;
  cfg.send_scratch = scratch_.get() + 2 * kHostMaxStepDataBytes;
  return cfg;
}

Status HostCollImpl::Execute(const CollCall& call, const TuneChoice& choice, const PlanKey& key, CachedPlan& slot) {
  PlanInput plan;
  plan.func = call.func;
  plan.type = call.type;
  plan.op = call.op;
  plan.count = call.count;
  plan.root_index = call.root;
  plan.nranks = link_.size();
  plan.nnodes = all_net_ ? link_.size() : hosts_;
  plan.ring_index = link_.rank();
  plan.algo = choice.algo;
  plan.proto = choice.proto;
  plan.nchannels = choice.nchannels;
  plan.buffer_bytes = HostBufferBytes(choice.proto);
  plan.net = HasNet();
  WorkDesc works[kMaxWorks];
  GR_ASSIGN_OR_RETURN(const int nworks, PlanCollective(plan, works));

  // Every rank makes the same groups in the same order (collective setup).
  ConnGroup* groups[kMaxWorks];
  WorkFn fns[kMaxWorks];
  PrimConfig configs[kMaxWorks];
  const PrimConfig base = BaseConfig(call, choice);
  for (int i = 0; i < nworks; ++i) {
    const WorkDesc& w = works[i];
    GR_ASSIGN_OR_RETURN(groups[i], Group(w.algo, w.proto, w.channel));
    GR_ASSIGN_OR_RETURN(fns[i], HostWorkFn(w));
    configs[i] = base;
    configs[i].site.net = proxy_.get();
    configs[i].site.channel = w.channel;
    configs[i].steps = ChunkSteps{w.chunk_steps, w.slice_steps};
    configs[i].step_elems = w.step_elems;
  }
  if (nworks > kCachedWorks) return RunWorks(call, nworks, works, fns, groups, configs);
  slot.valid = false;
  slot.messages = false;
  slot.key = key;
  slot.nworks = nworks;
  for (int i = 0; i < nworks; ++i) {
    slot.works[i] = works[i];
    slot.fns[i] = fns[i];
    slot.groups[i] = groups[i];
    slot.configs[i] = configs[i];
  }
  slot.valid = true;
  return RunWorks(call, slot.nworks, slot.works, slot.fns, slot.groups, slot.configs);
}

Status HostCollImpl::RunWorks(const CollCall& call, int nworks, const WorkDesc* works, const WorkFn* fns,
                              ConnGroup* const* groups, const PrimConfig* configs) {
  const auto* send = static_cast<const std::byte*>(call.send);
  auto* recv = static_cast<std::byte*>(call.recv);
  const NetProxy::Call net_call(proxy_.get());  // the proxy's passes are this thread's until the call ends
  for (int i = 0; i < nworks; ++i) {
    const WorkArgs args{&works[i], send, recv, groups[i], &configs[i]};
    GR_PRIMS_RETURN_IF_ERROR(fns[i](args));
  }
  return OkStatus();
}

Status HostCollImpl::RunMessages(const CollCall& call) {
  switch (call.func) {
    case Func::kBroadcast: return OneShotBroadcast(link_, call);
    case Func::kAllGather: return OneShotAllGather(link_, call);
    case Func::kAllReduce: return TwoShotAllReduce(link_, call, message_scratch_);
    default: return InternalError(std::string("no point-to-point form of ") + FuncName(call.func));
  }
}

}  // namespace gpurun::coll
