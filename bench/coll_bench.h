// gpurun-bench's collective measurements, nccl-tests style: for every
// (type, op, root, size) of the sweep, a timed loop out of place and one in
// place (per-iteration average on each rank, the slowest rank's reported),
// each followed by -c check iterations that count wrong output elements.
// Buffers are allocated once, before the sweep. Rank 0 prints the rows.
#ifndef GPURUN_BENCH_COLL_BENCH_H_
#define GPURUN_BENCH_COLL_BENCH_H_

#include "bench/bench_args.h"

// Runs the sweep of args.coll on the world communicator. Returns 0 when every
// checked element was right, 1 when some were wrong, 2 on a bad argument; a
// failed call aborts the job (the other ranks would wait for it otherwise).
int RunCollBench(const BenchArgs& args, int rank, int nranks);

#endif  // GPURUN_BENCH_COLL_BENCH_H_
