// RunWork (algorithms.h): the (func, algo, proto) -> algorithm table.
#include <string>

#include "coll/host/algorithms.h"

namespace gpurun::coll {
namespace {

template <typename P>
Status RunWorkOf(const WorkArgs& a) {
  const WorkDesc& w = *a.work;
  if (w.algo == Algo::kTree && w.func == Func::kAllReduce) return TreeAllReduce<P>(a);
  if (w.algo == Algo::kOneShot && w.func == Func::kAllReduce) return OneShotAllReduce<P>(a);
  if (w.algo == Algo::kRing) {
    switch (w.func) {
      case Func::kAllReduce: return RingAllReduce<P>(a);
      case Func::kAllGather: return RingAllGather<P>(a);
      case Func::kReduceScatter: return RingReduceScatter<P>(a);
      case Func::kBroadcast: return RingBroadcast<P>(a);
      case Func::kReduce: return RingReduce<P>(a);
    }
  }
  return InternalError(std::string("no host algorithm for ") + FuncName(w.func) + " " + AlgoName(w.algo));
}

}  // namespace

Status RunWork(const WorkArgs& a) {
  switch (a.work->proto) {
    case Protocol::kLL: return RunWorkOf<ProtoLL>(a);
    case Protocol::kLL128: return RunWorkOf<ProtoLL128>(a);
    case Protocol::kSimple: return RunWorkOf<ProtoSimple>(a);
  }
  return InternalError("unknown protocol in a work descriptor");
}

}  // namespace gpurun::coll
