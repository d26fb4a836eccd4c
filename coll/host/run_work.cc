// HostWorkFn (plan_cache.h): the
// (func, algo, proto) -> algorithm table.
#include <string>

#include "coll/host/algorithms.h"
#include "coll/host/plan_cache.h"

namespace gpurun::coll {
namespace {

template <typename P>
WorkFn WorkFnOf(const WorkDesc& w) {
  if (w.algo == Algo::kTree && w.func == Func::kAllReduce) return &TreeAllReduce<P>;
  if (w.algo == Algo::kOneShot && w.func == Func::kAllReduce) return &OneShotAllReduce<P>;
  if (w.algo == Algo::kRing) {
    switch (w.func) {
      case Func::kAllReduce: return &RingAllReduce<P>;
      case Func::kAllGather: return &RingAllGather<P>;
      case Func::kReduceScatter: return &RingReduceScatter<P>;
      case Func::kBroadcast: return &RingBroadcast<P>;
      case Func::kReduce: return &RingReduce<P>;
    }
  }
  return nullptr;
}

}  // namespace

StatusOr<WorkFn> HostWorkFn(const WorkDesc& w) {
  WorkFn fn = nullptr;
  switch (w.proto) {
    case Protocol::kLL: fn = WorkFnOf<ProtoLL>(w); break;
    case Protocol::kLL128: fn = WorkFnOf<ProtoLL128>(w); break;
    case Protocol::kSimple: fn = WorkFnOf<ProtoSimple>(w); break;
  }
  if (fn == nullptr && static_cast<int>(w.proto) >= kNumProtocols) {
    return InternalError("unknown protocol in a work descriptor");
  }
  if (fn == nullptr) {
    return InternalError(std::string("no host algorithm for ") + FuncName(w.func) + " " + AlgoName(w.algo));
  }
  return fn;
}

}  // namespace gpurun::coll
