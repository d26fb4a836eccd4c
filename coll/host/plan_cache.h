// PlanCache: the few most recent plans of one HostColl, so a repeated call
// (same function, type, op, count, root and choice inputs) skips the tuner,
// the planner, the connector-group lookup and the primitives' configuration:
// what the call then does is run its works. Direct-mapped, kPlanCacheSlots
// entries, each holding up to kCachedWorks works (one channel: a ring or
// one-shot work, or the tree's two) or the mark of a call that runs as
// messages; a plan with more works (forced extra channels) runs uncached. Fixed size, no allocation; not thread-safe
// (as HostColl::Run).
//
// Everything a cached plan depends on is in its key or fixed for the
// HostColl's life: the call's (func, type, op, count, root), the forced
// choice if any, and GPURUN_NCHANNELS (read per call, since tests change it);
// GPURUN_ALGO / GPURUN_PROTO and GPURUN_TIMEOUT are read once when the
// HostColl is made, and the communicator's shape never changes.
#ifndef GPURUN_COLL_HOST_PLAN_CACHE_H_
#define GPURUN_COLL_HOST_PLAN_CACHE_H_

#include <cstdint>

#include "coll/host/algorithms.h"
#include "coll/host/conn_group.h"
#include "coll/host/host_coll.h"
#include "coll/host/primitives.h"
#include "coll/planner/work.h"
#include "coll/tuner/tuner.h"

namespace gpurun::coll {

inline constexpr int kPlanCacheBits = 3;
inline constexpr int kPlanCacheSlots = 1 << kPlanCacheBits;
inline constexpr int kCachedWorks = 2;

// One algorithm instantiated for one protocol (algorithms.h).
using WorkFn = Status (*)(const WorkArgs& args);
// The algorithm for `work`, or InternalError for a pair the planner should have refused.
StatusOr<WorkFn> HostWorkFn(const WorkDesc& work);

// What selects a plan, packed into words so that a lookup compares four.
struct PlanKey {
  uint64_t count = 0;
  int64_t channels = 0;  // forced: the forced channel count; else GPURUN_NCHANNELS
  uint64_t call = 0;     // root (low 32 bits), func, type, op (a byte each)
  uint64_t choice = 0;   // forced (0 or 1), then the forced algo and proto (a byte each)

  bool operator==(const PlanKey&) const = default;
};

// A ready-to-run plan: its works, their algorithms, groups and primitive
// configurations; or, for oneshot allgather / broadcast, that the call runs
// as point-to-point messages (oneshot_messages.h), with no works.
struct CachedPlan {
  bool valid = false;
  bool messages = false;
  PlanKey key;
  int nworks = 0;
  WorkDesc works[kCachedWorks];
  WorkFn fns[kCachedWorks] = {};
  ConnGroup* groups[kCachedWorks] = {};
  PrimConfig configs[kCachedWorks];
};

class PlanCache {
 public:
  static PlanKey KeyOf(const CollCall& call, const TuneChoice* forced, int64_t nchannels_param) {
    PlanKey key;
    key.count = call.count;
    key.call = static_cast<uint64_t>(static_cast<uint32_t>(call.root)) | static_cast<uint64_t>(call.func) << 32 |
               static_cast<uint64_t>(call.type) << 40 | static_cast<uint64_t>(call.op) << 48;
    if (forced != nullptr) {
      key.channels = forced->nchannels;
      key.choice = 1 | static_cast<uint64_t>(forced->algo) << 8 | static_cast<uint64_t>(forced->proto) << 16;
    } else {
      key.channels = nchannels_param;
    }
    return key;
  }

  // The slot `key` maps to; a hit when slot.valid && slot.key == key.
  CachedPlan& SlotFor(const PlanKey& key) {
    const uint64_t kind = key.call >> 32;                                         // func, type, op
    const uint64_t h = (key.count + kind * 0x51ED27ull) * 0x9E3779B97F4A7C15ull;  // Fibonacci hashing
    return slots_[h >> (64 - kPlanCacheBits)];
  }

 private:
  CachedPlan slots_[kPlanCacheSlots];
};

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_HOST_PLAN_CACHE_H_
