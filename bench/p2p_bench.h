// gpurun-bench's point-to-point measurements between ranks 0 and 1, in the
// manner of the OSU micro-benchmarks: latency is half the average round trip
// of a blocking ping-pong; bandwidth streams a window of nonblocking sends and
// waits for a zero-byte acknowledgement per window.
#ifndef GPURUN_BENCH_P2P_BENCH_H_
#define GPURUN_BENCH_P2P_BENCH_H_

#include "bench/bench_args.h"

// Each returns 0 on success; rank 0 prints one line per size.
int RunLatency(const BenchArgs& args, int rank);
int RunBandwidth(const BenchArgs& args, int rank);

#endif  // GPURUN_BENCH_P2P_BENCH_H_
