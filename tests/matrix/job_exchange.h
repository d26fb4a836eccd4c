// Point-to-point helpers of coll_matrix that do not depend on the collectives
// under test: exchanging a few numbers between all ranks, and the barrier
// check (a barrier must not return on any rank before the last rank entered).
#ifndef GPURUN_TESTS_MATRIX_JOB_EXCHANGE_H_
#define GPURUN_TESTS_MATRIX_JOB_EXCHANGE_H_

#include <cstdint>
#include <vector>

#include "tests/matrix/case_plan.h"
#include "tests/matrix/reporter.h"

namespace gpurun::matrix {

// Every rank's `mine` (same length everywhere), indexed by rank, over
// grIsend/grIrecv. Aborts the job if point-to-point fails.
std::vector<std::vector<uint64_t>> ExchangeAll(const PlanContext& x, const std::vector<uint64_t>& mine);

// `rounds` barriers; in round k rank k % nranks enters `late_ms` late. Each
// rank checks that its barrier returned after every rank had entered (the
// ranks share the host's monotonic clock), one check per round. In device
// mode the barrier takes the job's stream and has returned once the stream
// has passed it; it may answer grUnsupported where MayBeUnsupported allows.
void RunBarrierChecks(const PlanContext& x, Algo algo, Proto proto, int rounds, int late_ms, Reporter& reporter);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_JOB_EXCHANGE_H_
