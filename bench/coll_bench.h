// gpurun-bench's collective measurements, nccl-tests style: for every
// (type, op, root, size) of the sweep, a timed loop out of place and one in
// place (per-iteration average on each rank, the slowest rank's reported),
// each followed by -c check iterations that count wrong output elements.
// Buffers are allocated once, before the sweep, on the host or (--device
// cuda) on this rank's GPU, where the loop is timed to a
// cudaStreamSynchronize. With --compare nccl every variant of every row also
// runs through NCCL, right after gpurun's, on the same buffers and stream.
// Rank 0 prints the rows.
#ifndef GPURUN_BENCH_COLL_BENCH_H_
#define GPURUN_BENCH_COLL_BENCH_H_

#include "bench/bench_args.h"
#include "bench/bench_target.h"

// Runs the sweep of each collective of args.colls on the world communicator.
// Returns 0 when every checked element was right, 1 when some were wrong, 2
// on a bad argument, 3 when a library declined a sweep (grUnsupported: it is
// reported and the sweep skipped, the rest still runs). A failed call aborts
// the job (the other ranks would wait for it otherwise).
int RunCollBench(const BenchArgs& args, const DeviceSetup& setup, int rank, int nranks);

#endif  // GPURUN_BENCH_COLL_BENCH_H_
