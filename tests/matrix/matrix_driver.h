// The gtest side of the collective matrix: runs one coll_matrix job under the
// project's gpurun with GPURUN_ALGO / GPURUN_PROTO forcing a variant, and
// checks what it printed: exit status 0, a summary with checks and no
// failures, and skip lines for exactly the collectives the variant must be
// rejected for (matrix_spec.h, ExpectRejected), no more, no fewer.
#ifndef GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_
#define GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_

#include <string>
#include <vector>

#include "tests/matrix/matrix_spec.h"

namespace gpurun::matrix {

struct Variant {
  Algo algo = Algo::kAuto;
  Proto proto = Proto::kAuto;
};

// The tuner's own choice, then ring and tree with each protocol.
std::vector<Variant> AllVariants();
// "auto", "ring_ll", "tree_simple", ...
std::string VariantName(const Variant& v);

struct MatrixJob {
  int ranks = 2;
  Variant variant;
  std::vector<Coll> colls;
  std::vector<std::string> slice;  // further coll_matrix flags (--types=..., --sizes=...)
  double limit_s = 600;            // the job is killed (and the test fails) past this
};

// Runs the job and records gtest failures for everything wrong with it.
void RunMatrixJob(const MatrixJob& job);

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_MATRIX_DRIVER_H_
