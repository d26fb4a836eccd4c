// Benchmark coordination over point-to-point (see bench_ctrl.h).
#include "bench/bench_ctrl.h"

#include <algorithm>

// Returns the call's error.
#define CTRL_TRY(call)                        \
  do {                                        \
    const grResult_t ctrl_rc = (call);        \
    if (ctrl_rc != grSuccess) return ctrl_rc; \
  } while (0)

namespace {

constexpr int kBarrierTag = 1;
constexpr int kResultTag = 2;

}  // namespace

grResult_t BenchCtrl::Init(grComm_t world) {
  CTRL_TRY(grCommRank(world, &rank_));
  CTRL_TRY(grCommSize(world, &size_));
  return grCommDup(world, &comm_);
}

grResult_t BenchCtrl::Free() { return grCommFree(&comm_); }

grResult_t BenchCtrl::Barrier() {
  if (rank_ != 0) {
    CTRL_TRY(grSend(nullptr, 0, grByte, 0, kBarrierTag, comm_, GR_STREAM_HOST));
    return grRecv(nullptr, 0, grByte, 0, kBarrierTag, comm_, GR_STATUS_IGNORE, GR_STREAM_HOST);
  }
  for (int r = 1; r < size_; ++r) {
    CTRL_TRY(grRecv(nullptr, 0, grByte, r, kBarrierTag, comm_, GR_STATUS_IGNORE, GR_STREAM_HOST));
  }
  for (int r = 1; r < size_; ++r) CTRL_TRY(grSend(nullptr, 0, grByte, r, kBarrierTag, comm_, GR_STREAM_HOST));
  return grSuccess;
}

grResult_t BenchCtrl::Combine(const RankResult& mine, RankResult* combined) {
  if (rank_ != 0) return grSend(&mine, sizeof(mine), grByte, 0, kResultTag, comm_, GR_STREAM_HOST);
  RankResult all = mine;
  for (int r = 1; r < size_; ++r) {
    RankResult theirs;
    CTRL_TRY(grRecv(&theirs, sizeof(theirs), grByte, r, kResultTag, comm_, GR_STATUS_IGNORE, GR_STREAM_HOST));
    for (int v = 0; v < 2; ++v) {
      all.time_us[v] = std::max(all.time_us[v], theirs.time_us[v]);
      all.wrong[v] += theirs.wrong[v];
    }
  }
  *combined = all;
  return grSuccess;
}
