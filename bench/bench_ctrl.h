// The benchmark's own coordination, over point-to-point on a private
// duplicate of the world communicator, so it never depends on (or mixes with)
// the collectives being measured: a barrier before each timed loop, an
// agreement on how every rank's first call went, and the gathering
// of every rank's results at rank 0 (the slowest time, the summed wrong
// counts).
#ifndef GPURUN_BENCH_BENCH_CTRL_H_
#define GPURUN_BENCH_BENCH_CTRL_H_

#include <cstdint>

#include "gpurun/gpurun.h"

// One rank's measurement of one row, for both variants.
struct RankResult {
  double time_us[2] = {0, 0};  // [0] out of place, [1] in place: per-iteration average; < 0: not measured
  int64_t wrong[2] = {0, 0};   // wrong output elements over the check iterations
};

class BenchCtrl {
 public:
  // Collective over `world`: makes the private duplicate.
  grResult_t Init(grComm_t world);
  // Frees the duplicate (collective).
  grResult_t Free();

  // Returns on every rank once every rank has entered it.
  grResult_t Barrier();

  // A barrier that also gives every rank the smallest and the largest of the ranks' `mine`.
  grResult_t MinMax(int mine, int* min, int* max);

  // At rank 0, *combined gets each variant's largest time and summed wrong
  // count over the ranks; the other ranks send theirs and leave *combined alone.
  grResult_t Combine(const RankResult& mine, RankResult* combined);

 private:
  grComm_t comm_ = GR_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

#endif  // GPURUN_BENCH_BENCH_CTRL_H_
