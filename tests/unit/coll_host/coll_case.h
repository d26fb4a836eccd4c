// Exact-result checking of one collective call on one rank, for the
// multi-thread tests: integer-valued inputs (exact in any summation order and
// in every type), poisoned outputs, expected values computed independently.
#ifndef GPURUN_TESTS_UNIT_COLL_HOST_COLL_CASE_H_
#define GPURUN_TESTS_UNIT_COLL_HOST_COLL_CASE_H_

#include <cstdint>
#include <string>

#include "coll/coll_types.h"
#include "coll/host/host_coll_impl.h"

namespace gpurun::coll {

struct CollCase {
  Func func = Func::kAllReduce;
  Algo algo = Algo::kRing;
  Protocol proto = Protocol::kSimple;
  DataType type = DataType::kFloat32;
  RedOp op = RedOp::kSum;
  uint64_t count = 0;
  bool in_place = false;
  int nchannels = 1;
  int root = 0;

  std::string Describe() const;
};

// Runs `c` on `rank` of `nranks` through `coll` with the choice forced and
// checks the output; "" when right, else what was wrong (first mismatch).
std::string RunAndCheck(HostCollImpl& coll, int rank, int nranks, const CollCase& c);

}  // namespace gpurun::coll

#endif  // GPURUN_TESTS_UNIT_COLL_HOST_COLL_CASE_H_
