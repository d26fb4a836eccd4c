// Multi-rank test drivers for HostColl in one process: each rank is a thread
// with its own ThreadLink and HostCollImpl (shared by host_coll_test.cc and
// oneshot_test.cc).
#ifndef GPURUN_TESTS_UNIT_COLL_HOST_RANK_THREADS_H_
#define GPURUN_TESTS_UNIT_COLL_HOST_RANK_THREADS_H_

#include <functional>
#include <string>
#include <vector>

#include "coll/host/host_coll_impl.h"
#include "tests/unit/coll_host/coll_case.h"
#include "tests/unit/coll_host/thread_link.h"

namespace gpurun::coll {

// A communicator name no other test of this process uses.
std::string NewUnique();

// Shared-memory segments of `unique` still in /dev/shm.
int SegmentsLeft(const std::string& unique);

using RankFn = std::function<std::string(int rank, HostCollImpl& coll, ThreadWorld& world)>;

// Runs fn on every rank (one thread each); returns the ranks' errors joined.
std::string RunRanks(ThreadWorld& world, const RankFn& fn);

// Runs the cases on every rank in order; stops a rank at its first error.
std::string RunCases(ThreadWorld& world, const std::vector<CollCase>& cases);

}  // namespace gpurun::coll

#endif  // GPURUN_TESTS_UNIT_COLL_HOST_RANK_THREADS_H_
