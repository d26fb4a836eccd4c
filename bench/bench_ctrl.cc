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
  int min = 0, max = 0;
  return MinMax(0, &min, &max);
}

grResult_t BenchCtrl::MinMax(int mine, int* min, int* max) {
  int range[2] = {mine, mine};
  if (rank_ != 0) {
    CTRL_TRY(grSend(&mine, 1, grInt32, 0, kBarrierTag, comm_, GR_STREAM_HOST));
    CTRL_TRY(grRecv(range, 2, grInt32, 0, kBarrierTag, comm_, GR_STATUS_IGNORE, GR_STREAM_HOST));
  } else {
    for (int r = 1; r < size_; ++r) {
      int theirs = 0;
      CTRL_TRY(grRecv(&theirs, 1, grInt32, r, kBarrierTag, comm_, GR_STATUS_IGNORE, GR_STREAM_HOST));
      range[0] = std::min(range[0], theirs);
      range[1] = std::max(range[1], theirs);
    }
    for (int r = 1; r < size_; ++r) CTRL_TRY(grSend(range, 2, grInt32, r, kBarrierTag, comm_, GR_STREAM_HOST));
  }
  *min = range[0];
  *max = range[1];
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
